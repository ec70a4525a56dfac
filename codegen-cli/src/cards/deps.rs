//! A card's `deps: file.rs:Type` and the `Dep<T>` parameters of its
//! function tools.
//!
//! The agent is built from one value of the dependency type
//! (`Agent::new(&deps)`); a tool parameter `x: Dep<T>` gets the `T` that
//! value provides through `hookwire::deps::FromRef`. `cardgen check` checks, for
//! every `Dep<T>` of every function tool of a card, that the card's
//! dependency type provides `T`, so that what it accepts compiles.
//!
//! **What counts as provided.** The dependency type itself (the runtime's
//! `impl<T: Clone> FromRef<T> for T`; for a struct or enum, `Clone` must be
//! derived or implemented in its file), and every `T` of a top-level
//! `impl FromRef<Deps> for T` (any path ending in `FromRef`, such as
//! `hookwire::deps::FromRef`, and not behind a `cfg`) in the dependency type's
//! file or in any other `.rs` file the card references. Types are compared
//! by their token text with every path cut to its last segment:
//! `Dep<std::sync::Arc<crate::db::Pool>>` asks for `Arc<Pool>`, which
//! `impl FromRef<AppDeps> for Arc<Pool>` provides; `FromRef<Deps>` must name
//! the dependency type by the name the card gives it. A generic impl
//! (`impl<D> FromRef<D> for T`) is not read: write one impl per dependency
//! type.
//!
//! **How the adapter names `T`.** The adapter of a card's tool lives in the
//! generated `__rust_refs` module, next to the module of the tool's file,
//! so a `T` written for the tool's file is rewritten to name the same type
//! from there: a name the file declares becomes `self::<file module>::T`,
//! a name the file imports with `use` becomes the imported path (with
//! `super::` meaning the generated module, whose children are the
//! referenced files: `tools.rs` reaches `deps.rs` as `super::deps_rs`), and
//! `crate::`, `::` and other crates' paths stay as written.

use std::collections::{HashMap, HashSet};

use quote::{ToTokens, format_ident};
use syn::{FnArg, GenericArgument, PathArguments, Type};

use super::Diagnostic;
use super::rust::{RsFile, cfg_of};

/// A card's resolved `deps:`.
#[derive(Debug, Clone)]
pub(crate) struct CardDeps {
    /// The type's name (as the card gives it).
    pub(crate) name: String,
    /// `file.rs:Type` as written.
    pub(crate) text: String,
    /// The file part as written.
    pub(crate) file: String,
    /// Whether the type is `Clone` (derived or implemented in its file; a
    /// type alias is taken to be): only then is it a part of itself.
    pub(crate) clone: bool,
}

/// The type `ty` as compared: its token text with every path cut to its
/// last segment (`std::sync::Arc<crate::Db>` -> `Arc<Db>`).
pub(crate) fn normalize(ty: &Type) -> String {
    let mut out = String::new();
    push_normalized(ty, &mut out);
    out
}

fn push_normalized(ty: &Type, out: &mut String) {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            if let Some(seg) = p.path.segments.last() {
                out.push_str(&seg.ident.to_string());
                push_args(&seg.arguments, out);
            }
        }
        Type::Reference(r) => {
            out.push('&');
            if let Some(l) = &r.lifetime {
                out.push_str(&l.to_string());
                out.push(' ');
            }
            if r.mutability.is_some() {
                out.push_str("mut ");
            }
            push_normalized(&r.elem, out);
        }
        Type::Paren(p) => push_normalized(&p.elem, out),
        Type::Group(g) => push_normalized(&g.elem, out),
        Type::Slice(s) => {
            out.push('[');
            push_normalized(&s.elem, out);
            out.push(']');
        }
        Type::Tuple(t) => {
            out.push('(');
            for (i, e) in t.elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_normalized(e, out);
            }
            out.push(')');
        }
        other => out.push_str(&written(other)),
    }
}

fn push_args(args: &PathArguments, out: &mut String) {
    let PathArguments::AngleBracketed(a) = args else {
        return;
    };
    out.push('<');
    for (i, arg) in a.args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match arg {
            GenericArgument::Type(t) => push_normalized(t, out),
            other => out.push_str(&written(other)),
        }
    }
    out.push('>');
}

/// Tokens as a reader writes them (`Arc<Db>`, not `Arc < Db >`).
fn written(t: &impl ToTokens) -> String {
    t.to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" < ", "<")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& ", "&")
}

/// `Dep<T>` (any path ending in `Dep`): the `T`.
fn dep_inner(ty: &Type) -> Option<&Type> {
    crate::lower::dep_inner(ty)
}

/// The `Dep<T>` of `ty`, mutably.
fn dep_inner_mut(ty: &mut Type) -> Option<&mut Type> {
    match ty {
        Type::Paren(p) => dep_inner_mut(&mut p.elem),
        Type::Group(g) => dep_inner_mut(&mut g.elem),
        Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last_mut()?;
            if seg.ident != "Dep" {
                return None;
            }
            match &mut seg.arguments {
                PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first_mut() {
                    Some(GenericArgument::Type(t)) => Some(t),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// What the dependency type `deps` provides, normalized (see the module
/// docs): itself if it is `Clone`, and the self type of every top-level
/// `impl FromRef<deps> for T` of `files`.
pub(crate) fn provided<'a>(
    deps: &CardDeps,
    files: impl Iterator<Item = &'a RsFile>,
) -> HashSet<String> {
    let mut out = HashSet::new();
    if deps.clone {
        out.insert(deps.name.clone());
    }
    for file in files {
        for item in &file.ast.items {
            let syn::Item::Impl(i) = item else { continue };
            if cfg_of(&i.attrs).is_some() {
                continue;
            }
            let Some((path, _)) = &i.trait_ else {
                continue;
            };
            let Some(seg) = path.segments.last() else {
                continue;
            };
            if seg.ident != "FromRef" {
                continue;
            }
            let PathArguments::AngleBracketed(a) = &seg.arguments else {
                continue;
            };
            let arg = match (a.args.len(), a.args.first()) {
                (1, Some(GenericArgument::Type(t))) => normalize(t),
                _ => continue,
            };
            if arg == deps.name {
                out.insert(normalize(&i.self_ty));
            }
        }
    }
    out
}

/// Every `Dep<T>` parameter of the tool `item` (in `file`, referenced as
/// `referenced`) that the card's dependencies do not provide: one error
/// each, at the parameter's type.
pub(crate) fn check_tool(
    file: &RsFile,
    item: &syn::ItemFn,
    deps: Option<&CardDeps>,
    provided: &HashSet<String>,
    referenced: &str,
) -> Vec<Diagnostic> {
    let tool = &item.sig.ident;
    let mut out = Vec::new();
    for input in &item.sig.inputs {
        let FnArg::Typed(t) = input else { continue };
        let Some(inner) = dep_inner(&t.ty) else {
            continue;
        };
        let want = normalize(inner);
        let shown = written(inner);
        let at = |message: String| {
            file.diag_at(syn::spanned::Spanned::span(&*t.ty), tool.span(), message)
                .note(referenced.to_owned())
        };
        let Some(deps) = deps else {
            out.push(
                at(format!(
                    "tool `{tool}` takes `Dep<{shown}>`, but its card declares no `deps:`, so the agent is built without dependencies"
                ))
                .help(format!(
                    "declare the type the agent is built from in the card, for example `deps: deps.rs:AppDeps`, with `impl hookwire::deps::FromRef<AppDeps> for {want}` in deps.rs"
                )),
            );
            continue;
        };
        if provided.contains(&want) {
            continue;
        }
        let name = &deps.name;
        if want == *name {
            out.push(
                at(format!(
                    "tool `{tool}` takes `Dep<{shown}>`, the agent's dependencies themselves, which it gets as a clone, but `{name}` neither derives nor implements `Clone` in `{}`",
                    deps.file
                ))
                .help(format!("add `#[derive(Clone)]` to `{name}`")),
            );
            continue;
        }
        let mut have: Vec<&str> = provided.iter().map(String::as_str).collect();
        have.sort_unstable();
        out.push(
            at(format!(
                "tool `{tool}` takes `Dep<{shown}>`, but the agent's dependencies `{name}` (`deps: {}`) do not provide `{want}`",
                deps.text
            ))
            .help(if syn::parse_str::<syn::Ident>(&want).is_ok() {
                format!(
                    "add `impl hookwire::deps::FromRef<{name}> for {want}` to {}, or declare `deps: {}:{want}`",
                    deps.file, deps.file
                )
            } else {
                format!(
                    "add `impl hookwire::deps::FromRef<{name}> for {want}` to {}",
                    deps.file
                )
            })
            .note(if have.is_empty() {
                format!("`{name}` provides nothing (it is not `Clone`, and no referenced file has an `impl FromRef<{name}> for ..`)")
            } else {
                format!("`{name}` provides: {}", have.join(", "))
            }),
        );
    }
    out
}

/// How the names of a referenced file are reached from the generated
/// module that holds it (as the module `module`).
struct Scope {
    module: syn::Ident,
    /// Names the file declares at its top level.
    local: HashSet<String>,
    /// Names the file imports with a top-level `use`: name -> path.
    uses: HashMap<String, syn::Path>,
}

impl Scope {
    fn new(file: &RsFile, module: &str) -> Self {
        let mut local = HashSet::new();
        let mut uses = HashMap::new();
        for item in &file.ast.items {
            let ident = match item {
                syn::Item::Struct(s) => &s.ident,
                syn::Item::Enum(e) => &e.ident,
                syn::Item::Union(u) => &u.ident,
                syn::Item::Type(t) => &t.ident,
                syn::Item::Trait(t) => &t.ident,
                syn::Item::Mod(m) => &m.ident,
                syn::Item::Use(u) if cfg_of(&u.attrs).is_none() => {
                    let prefix = syn::Path {
                        leading_colon: u.leading_colon,
                        segments: syn::punctuated::Punctuated::new(),
                    };
                    collect_uses(&u.tree, prefix, &mut uses);
                    continue;
                }
                _ => continue,
            };
            local.insert(ident.to_string());
        }
        Self {
            module: format_ident!("{}", module),
            local,
            uses,
        }
    }

    /// Rewrites every path of `ty` to name the same type from the
    /// generated module.
    fn qualify_type(&self, ty: &mut Type) {
        match ty {
            Type::Path(p) => {
                if p.qself.is_none() {
                    self.qualify_path(&mut p.path, 0);
                }
                for seg in &mut p.path.segments {
                    if let PathArguments::AngleBracketed(a) = &mut seg.arguments {
                        for arg in &mut a.args {
                            if let GenericArgument::Type(t) = arg {
                                self.qualify_type(t);
                            }
                        }
                    }
                }
            }
            Type::Reference(r) => self.qualify_type(&mut r.elem),
            Type::Paren(p) => self.qualify_type(&mut p.elem),
            Type::Group(g) => self.qualify_type(&mut g.elem),
            Type::Slice(s) => self.qualify_type(&mut s.elem),
            Type::Array(a) => self.qualify_type(&mut a.elem),
            Type::Ptr(p) => self.qualify_type(&mut p.elem),
            Type::Tuple(t) => {
                for e in &mut t.elems {
                    self.qualify_type(e);
                }
            }
            _ => {}
        }
    }

    fn qualify_path(&self, path: &mut syn::Path, depth: usize) {
        if path.leading_colon.is_some() || depth > 8 {
            return;
        }
        let len = path.segments.len();
        let Some(first) = path.segments.first_mut() else {
            return;
        };
        let name = first.ident.to_string();
        let span = first.ident.span();
        let module = &self.module;
        // The segments kept as the file wrote them, after the new prefix.
        let kept = match name.as_str() {
            "crate" | "Self" => return,
            // The file's parent is the generated module itself.
            "super" => {
                first.ident = syn::Ident::new("self", span);
                return;
            }
            "self" => {
                let rest: Vec<syn::PathSegment> = path.segments.iter().skip(1).cloned().collect();
                let kept = rest.len();
                let mut new: syn::Path = syn::parse_quote!(self::#module);
                new.segments.extend(rest);
                *path = new;
                kept
            }
            _ if self.local.contains(&name) => {
                let kept = len;
                let mut new: syn::Path = syn::parse_quote!(self::#module);
                new.segments.extend(path.segments.iter().cloned());
                *path = new;
                kept
            }
            _ => {
                let Some(imported) = self.uses.get(&name) else {
                    return;
                };
                let kept = len - 1;
                let mut new = imported.clone();
                let args = first.arguments.clone();
                if let Some(last) = new.segments.last_mut() {
                    last.arguments = args;
                }
                new.segments.extend(path.segments.iter().skip(1).cloned());
                self.qualify_path(&mut new, depth + 1);
                *path = new;
                kept
            }
        };
        let put = path.segments.len().saturating_sub(kept);
        respan(path, put, span);
    }
}

/// Gives the first `n` segments of `path` (and the `::`s before and
/// between them) `span`: the tokens put in place of the name the file
/// wrote, which would otherwise carry the span of its `use` line (or none),
/// so that an error on the type points at the type the file wrote.
fn respan(path: &mut syn::Path, n: usize, span: proc_macro2::Span) {
    if let Some(colon) = &mut path.leading_colon {
        colon.spans = [span; 2];
    }
    for mut pair in path.segments.pairs_mut().take(n) {
        pair.value_mut().ident.set_span(span);
        if let Some(punct) = pair.punct_mut() {
            punct.spans = [span; 2];
        }
    }
}

/// The names a `use` tree imports, with their full paths.
fn collect_uses(tree: &syn::UseTree, prefix: syn::Path, out: &mut HashMap<String, syn::Path>) {
    let with = |ident: &syn::Ident| {
        let mut p = prefix.clone();
        p.segments.push(syn::PathSegment::from(ident.clone()));
        p
    };
    match tree {
        syn::UseTree::Path(p) => collect_uses(&p.tree, with(&p.ident), out),
        syn::UseTree::Name(n) if n.ident == "self" => {
            if let Some(last) = prefix.segments.last() {
                out.insert(last.ident.to_string(), prefix.clone());
            }
        }
        syn::UseTree::Name(n) => {
            out.insert(n.ident.to_string(), with(&n.ident));
        }
        syn::UseTree::Rename(r) if r.ident == "self" => {
            out.insert(r.rename.to_string(), prefix.clone());
        }
        syn::UseTree::Rename(r) => {
            out.insert(r.rename.to_string(), with(&r.ident));
        }
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_uses(t, prefix.clone(), out);
            }
        }
    }
}

/// The tool `item` of `file` (held by the generated module as `module`)
/// with its parameter types (the `T` of a `Dep<T>`) and its return type
/// rewritten to name the same types from the generated module (see the
/// module docs): a struct the tool's own file declares, or imports, is
/// then found by the adapter. `None` if nothing needed rewriting.
pub(crate) fn qualify(item: &syn::ItemFn, file: &RsFile, module: &str) -> Option<syn::ItemFn> {
    let scope = Scope::new(file, module);
    let mut qualified = item.clone();
    for input in &mut qualified.sig.inputs {
        if let FnArg::Typed(t) = input {
            match dep_inner_mut(&mut t.ty) {
                Some(inner) => scope.qualify_type(inner),
                None => scope.qualify_type(&mut t.ty),
            }
        }
    }
    if let syn::ReturnType::Type(_, ty) = &mut qualified.sig.output {
        scope.qualify_type(ty);
    }
    (qualified.sig != item.sig).then_some(qualified)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn file(text: &str) -> RsFile {
        RsFile::new(
            "t.rs".into(),
            text.to_owned(),
            syn::parse_file(text).unwrap(),
        )
    }

    /// The `Dep<T>` types of the tool `f` of `text` as the adapter in the
    /// generated module names them.
    fn qualified(text: &str) -> Vec<String> {
        let file = file(text);
        let Some(syn::Item::Fn(f)) = file
            .ast
            .items
            .iter()
            .find(|i| matches!(i, syn::Item::Fn(_)))
        else {
            panic!("no fn");
        };
        let item = qualify(f, &file, "tools_rs").unwrap();
        item.sig
            .inputs
            .iter()
            .filter_map(|i| match i {
                FnArg::Typed(t) => dep_inner(&t.ty).map(written),
                FnArg::Receiver(_) => None,
            })
            .collect()
    }

    #[test]
    fn dep_types_are_named_from_the_generated_module() {
        let text = "
            use super::deps_rs::Db;
            use super::deps_rs::{self as d, Cache as Kv};
            use std::sync::Arc;
            use crate::config::{Config};
            pub struct Local;
            pub fn f(
                a: Dep<Db>,
                b: hookwire::Dep<Arc<Local>>,
                c: Dep<Kv>,
                d: Dep<d::Pool>,
                e: Dep<crate::App>,
                g: Dep<Config>,
                h: Dep<self::Local>,
                i: Dep<super::deps_rs::AppDeps>,
                j: Dep<::std::string::String>,
                k: Dep<String>,
                l: Dep<(Db, Vec<Local>)>,
                x: u32,
            ) {}
        ";
        assert_eq!(
            qualified(text),
            [
                "self::deps_rs::Db",
                "std::sync::Arc<self::tools_rs::Local>",
                "self::deps_rs::Cache",
                "self::deps_rs::Pool",
                "crate::App",
                "crate::config::Config",
                "self::tools_rs::Local",
                "self::deps_rs::AppDeps",
                "::std::string::String",
                "String",
                "(self::deps_rs::Db, Vec<self::tools_rs::Local>)",
            ]
        );
        // No `Dep<T>`: nothing to rewrite.
        let plain = file("pub fn f(x: u32) {}");
        let Some(syn::Item::Fn(f)) = plain.ast.items.first() else {
            panic!("no fn");
        };
        assert!(qualify(f, &plain, "tools_rs").is_none());
    }

    #[test]
    fn types_are_compared_by_their_last_segments() {
        let n = |t: &str| normalize(&syn::parse_str(t).unwrap());
        assert_eq!(n("std::sync::Arc<crate::db::Pool>"), "Arc<Pool>");
        assert_eq!(n("Arc<Pool>"), "Arc<Pool>");
        assert_eq!(n("super::deps_rs::AppDeps"), "AppDeps");
        assert_eq!(n("(a::A, &'static b::B)"), "(A, &'static B)");
        assert_ne!(n("Arc<Pool>"), n("Rc<Pool>"));
    }
}
