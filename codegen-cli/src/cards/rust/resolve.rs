//! What the names in a referenced function's signature stand for, read off
//! its file: the file's type aliases are expanded and its imports renamed
//! back, so the shared signature rules see the types the compiler sees. A
//! name of hookwire's (`Outcome`, `Handler`, ..) that the file defines or
//! imports from elsewhere is an error on the name: the rules would take it
//! for hookwire's, the compiler would not.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::{GenericArgument, PathArguments, ReturnType, Type, TypeParamBound};

/// The names of hookwire's that signatures are checked by.
const HOOKWIRE_NAMES: &[&str] = &[
    "ToolContext",
    "ToolArgs",
    "Next",
    "Outcome",
    "Decision",
    "ToolResult",
    "ToolError",
    "Handler",
    "Dep",
    "Json",
    "IntoOutcome",
];

/// How deep aliases of aliases are followed.
const MAX_DEPTH: usize = 16;

/// A top-level name of the file.
enum Local<'f> {
    /// `type Name<P..> = Target;`
    Alias(&'f syn::ItemType),
    /// A struct, enum, union or trait: (its keyword, its name).
    Item(&'static str, &'f syn::Ident),
    /// `use a::b::Name;` / `use a::b::X as Name;`: the full path.
    Import(Vec<syn::Ident>),
}

/// The top-level names of one file.
pub(super) struct Scope<'f> {
    names: HashMap<String, Local<'f>>,
}

impl<'f> Scope<'f> {
    /// The names `ast` defines and imports at its top level.
    pub(super) fn of(ast: &'f syn::File) -> Self {
        let mut names = HashMap::new();
        for item in &ast.items {
            match item {
                syn::Item::Type(t) => {
                    names.insert(t.ident.to_string(), Local::Alias(t));
                }
                syn::Item::Struct(s) => {
                    names.insert(s.ident.to_string(), Local::Item("struct", &s.ident));
                }
                syn::Item::Enum(e) => {
                    names.insert(e.ident.to_string(), Local::Item("enum", &e.ident));
                }
                syn::Item::Union(u) => {
                    names.insert(u.ident.to_string(), Local::Item("union", &u.ident));
                }
                syn::Item::Trait(t) => {
                    names.insert(t.ident.to_string(), Local::Item("trait", &t.ident));
                }
                syn::Item::TraitAlias(t) => {
                    names.insert(t.ident.to_string(), Local::Item("trait", &t.ident));
                }
                syn::Item::Use(u) => imports(&u.tree, &mut Vec::new(), &mut names),
                _ => {}
            }
        }
        Self { names }
    }

    /// `sig` with every name resolved: the file's aliases expanded (spanned
    /// where the alias is used) and imports of hookwire's names written as
    /// those names.
    pub(super) fn signature(&self, sig: &syn::Signature) -> syn::Result<syn::Signature> {
        let mut sig = sig.clone();
        for input in &mut sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                *t.ty = self.ty(&t.ty, 0)?;
            }
        }
        if let ReturnType::Type(_, ty) = &mut sig.output {
            **ty = self.ty(ty, 0)?;
        }
        for param in &mut sig.generics.params {
            if let syn::GenericParam::Type(t) = param {
                for bound in &mut t.bounds {
                    self.bound(bound, 0)?;
                }
            }
        }
        if let Some(w) = &mut sig.generics.where_clause {
            for predicate in &mut w.predicates {
                if let syn::WherePredicate::Type(p) = predicate {
                    p.bounded_ty = self.ty(&p.bounded_ty, 0)?;
                    for bound in &mut p.bounds {
                        self.bound(bound, 0)?;
                    }
                }
            }
        }
        Ok(sig)
    }

    fn bound(&self, bound: &mut TypeParamBound, depth: usize) -> syn::Result<()> {
        if let TypeParamBound::Trait(t) = bound {
            self.path(&mut t.path, depth)?;
            if let Some(name) = single(&t.path).cloned()
                && let Some(local) = self.names.get(&name.to_string())
            {
                match local {
                    Local::Import(full) => self.rename(&mut t.path, full, &name)?,
                    Local::Item(..) | Local::Alias(_) => self.shadowed(&name, local)?,
                }
            }
        }
        Ok(())
    }

    /// Resolves the generic arguments of every segment of `path`.
    fn path(&self, path: &mut syn::Path, depth: usize) -> syn::Result<()> {
        for seg in &mut path.segments {
            if let PathArguments::AngleBracketed(a) = &mut seg.arguments {
                for arg in &mut a.args {
                    if let GenericArgument::Type(t) = arg {
                        *t = self.ty(t, depth)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn ty(&self, ty: &Type, depth: usize) -> syn::Result<Type> {
        let mut ty = ty.clone();
        match &mut ty {
            Type::Path(p) if p.qself.is_none() => {
                self.path(&mut p.path, depth)?;
                let Some(name) = single(&p.path).cloned() else {
                    return Ok(ty);
                };
                match self.names.get(&name.to_string()) {
                    Some(Local::Alias(alias)) => {
                        if depth >= MAX_DEPTH {
                            return Err(syn::Error::new_spanned(
                                &name,
                                format!(
                                    "type alias `{name}` expands more than {MAX_DEPTH} times: name the type itself"
                                ),
                            ));
                        }
                        let args: Vec<GenericArgument> = match &p.path.segments[0].arguments {
                            PathArguments::AngleBracketed(a) => a.args.iter().cloned().collect(),
                            _ => Vec::new(),
                        };
                        let expanded = substitute(alias, &args);
                        if is_hookwire_name(&name)
                            && single_or_last(&expanded).is_none_or(|n| *n != name)
                        {
                            return Err(shadow_error(&name, "type", &alias.ident));
                        }
                        let resolved = self.ty(&expanded, depth + 1)?;
                        return Ok(respan(&resolved, name.span()));
                    }
                    Some(Local::Import(full)) => {
                        self.rename(&mut p.path, full, &name)?;
                    }
                    Some(local @ Local::Item(..)) => self.shadowed(&name, local)?,
                    None => {}
                }
            }
            Type::Reference(r) => *r.elem = self.ty(&r.elem, depth)?,
            Type::Paren(p) => *p.elem = self.ty(&p.elem, depth)?,
            Type::Group(g) => *g.elem = self.ty(&g.elem, depth)?,
            Type::Slice(s) => *s.elem = self.ty(&s.elem, depth)?,
            Type::Array(a) => *a.elem = self.ty(&a.elem, depth)?,
            Type::Tuple(t) => {
                for elem in &mut t.elems {
                    *elem = self.ty(elem, depth)?;
                }
            }
            Type::ImplTrait(i) => {
                for bound in &mut i.bounds {
                    self.bound(bound, depth)?;
                }
            }
            _ => {}
        }
        Ok(ty)
    }

    /// `Name` imported as `full`: written as the imported item's own name
    /// when it is hookwire's, an error when it hides one of hookwire's.
    fn rename(
        &self,
        path: &mut syn::Path,
        full: &[syn::Ident],
        name: &syn::Ident,
    ) -> syn::Result<()> {
        let from_hookwire = full.first().is_some_and(|f| f == "hookwire");
        let Some(original) = full.last() else {
            return Ok(());
        };
        if from_hookwire {
            if let Some(seg) = path.segments.first_mut() {
                seg.ident = syn::Ident::new(&original.to_string(), name.span());
            }
            return Ok(());
        }
        if is_hookwire_name(name) {
            let shown: Vec<String> = full.iter().map(ToString::to_string).collect();
            return Err(syn::Error::new_spanned(
                name,
                format!(
                    "`{name}` here is `{}`, imported at the top of this file, not hookwire's `{name}`: write `hookwire::{name}`, or import hookwire's",
                    shown.join("::")
                ),
            ));
        }
        Ok(())
    }

    fn shadowed(&self, name: &syn::Ident, local: &Local<'_>) -> syn::Result<()> {
        match local {
            Local::Item(keyword, ident) if is_hookwire_name(name) => {
                Err(shadow_error(name, keyword, ident))
            }
            _ => Ok(()),
        }
    }
}

fn shadow_error(name: &syn::Ident, keyword: &str, defined: &syn::Ident) -> syn::Error {
    let line = defined.span().start().line;
    syn::Error::new_spanned(
        name,
        format!(
            "`{name}` here is this file's own `{keyword} {name}` (line {line}), not hookwire's `{name}`: rename the local `{name}`, or write `hookwire::{name}`"
        ),
    )
}

fn is_hookwire_name(name: &syn::Ident) -> bool {
    HOOKWIRE_NAMES.iter().any(|n| name == n)
}

/// The name of a one-segment path without a leading `::`.
fn single(path: &syn::Path) -> Option<&syn::Ident> {
    (path.leading_colon.is_none() && path.segments.len() == 1).then(|| &path.segments[0].ident)
}

/// The last name of a path type.
pub(super) fn single_or_last(ty: &Type) -> Option<&syn::Ident> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| &s.ident),
        Type::Group(g) => single_or_last(&g.elem),
        Type::Paren(p) => single_or_last(&p.elem),
        _ => None,
    }
}

/// The target of `alias` with its type and lifetime parameters replaced by
/// `args` (missing type arguments by their defaults).
fn substitute(alias: &syn::ItemType, args: &[GenericArgument]) -> Type {
    let mut types = args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t.to_token_stream()),
        _ => None,
    });
    let mut lifetimes = args.iter().filter_map(|a| match a {
        GenericArgument::Lifetime(l) => Some(l.to_token_stream()),
        _ => None,
    });
    let mut params: HashMap<String, TokenStream> = HashMap::new();
    for param in &alias.generics.params {
        match param {
            syn::GenericParam::Type(p) => {
                let arg = types
                    .next()
                    .or_else(|| p.default.as_ref().map(|(_, t)| t.to_token_stream()));
                if let Some(arg) = arg {
                    params.insert(p.ident.to_string(), arg);
                }
            }
            syn::GenericParam::Lifetime(l) => {
                let arg = lifetimes.next().unwrap_or_else(|| quote::quote!('_));
                params.insert(format!("'{}", l.lifetime.ident), arg);
            }
            syn::GenericParam::Const(_) => {}
        }
    }
    if params.is_empty() {
        return (*alias.ty).clone();
    }
    let tokens = replace_idents(alias.ty.to_token_stream(), &params);
    syn::parse2(tokens).unwrap_or_else(|_| (*alias.ty).clone())
}

fn replace_idents(tokens: TokenStream, params: &HashMap<String, TokenStream>) -> TokenStream {
    let mut out = TokenStream::new();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(t) = tokens.next() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '\'' => {
                let lifetime = match tokens.peek() {
                    Some(TokenTree::Ident(i)) => params.get(&format!("'{i}")).cloned(),
                    _ => None,
                };
                match lifetime {
                    Some(arg) => {
                        tokens.next();
                        out.extend(arg);
                    }
                    None => out.extend([TokenTree::Punct(p)]),
                }
            }
            TokenTree::Ident(i) => match params.get(&i.to_string()) {
                Some(arg) => {
                    let mut group =
                        proc_macro2::Group::new(proc_macro2::Delimiter::None, arg.clone());
                    group.set_span(i.span());
                    out.extend([TokenTree::Group(group)]);
                }
                None => out.extend([TokenTree::Ident(i)]),
            },
            TokenTree::Group(g) => {
                let mut group =
                    proc_macro2::Group::new(g.delimiter(), replace_idents(g.stream(), params));
                group.set_span(g.span());
                out.extend([TokenTree::Group(group)]);
            }
            other => out.extend([other]),
        }
    }
    out
}

/// `ty` with every token at `span` (where the alias is used, so that an
/// error about the expanded type points at what the user wrote).
fn respan(ty: &Type, span: Span) -> Type {
    fn go(tokens: TokenStream, span: Span) -> TokenStream {
        tokens
            .into_iter()
            .map(|mut t| {
                if let TokenTree::Group(g) = &t {
                    let mut out = proc_macro2::Group::new(g.delimiter(), go(g.stream(), span));
                    out.set_span(span);
                    t = TokenTree::Group(out);
                } else {
                    t.set_span(span);
                }
                t
            })
            .collect()
    }
    syn::parse2(go(ty.to_token_stream(), span)).unwrap_or_else(|_| ty.clone())
}

/// `prefix::item`, imported as `local`.
fn import(
    prefix: &[syn::Ident],
    item: &syn::Ident,
    local: &syn::Ident,
    names: &mut HashMap<String, Local<'_>>,
) {
    let mut full = prefix.to_vec();
    full.push(item.clone());
    names
        .entry(local.to_string())
        .or_insert(Local::Import(full));
}

/// The names a `use` tree brings in, with the full path of each.
fn imports<'f>(
    tree: &'f syn::UseTree,
    prefix: &mut Vec<syn::Ident>,
    names: &mut HashMap<String, Local<'f>>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.clone());
            imports(&p.tree, prefix, names);
            prefix.pop();
        }
        syn::UseTree::Name(n) => import(prefix, &n.ident, &n.ident, names),
        syn::UseTree::Rename(r) => import(prefix, &r.ident, &r.rename, names),
        syn::UseTree::Group(g) => {
            for item in &g.items {
                imports(item, prefix, names);
            }
        }
        syn::UseTree::Glob(_) => {}
    }
}
