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
fn single_or_last(ty: &Type) -> Option<&syn::Ident> {
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

/// What a tool may return, by name: what `IntoOutcome` is implemented for.
const RETURNS: &[&str] = &[
    "String",
    "ToolResult",
    "Outcome",
    "Json",
    "bool",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "f32",
    "f64",
];

/// The return type of a tool a card lowers must be one `IntoOutcome` is
/// implemented for (`implemented` tells whether the file implements it for a
/// type of its own), or a `Result` of one: the compiler would reject
/// anything else only when the generated code is built.
pub(super) fn check_tool_return(
    sig: &syn::Signature,
    implemented: impl Fn(&str) -> bool,
) -> syn::Result<()> {
    check_return(sig, "tool", implemented)
}

/// The function of an `agents` entry: `output` is `fn(&RunOutput,
/// &[Message]) -> R`, `on_error` is `fn(ToolError) -> R`, each a plain
/// (not async, not generic) function whose `R` is what a tool may return.
pub(super) fn check_child_fn(
    sig: &syn::Signature,
    output: bool,
    implemented: impl Fn(&str) -> bool,
) -> syn::Result<()> {
    let (what, expected) = if output {
        (
            "output extractor",
            "fn(out: &RunOutput, history: &[Message]) -> R",
        )
    } else {
        ("on_error mapping", "fn(error: ToolError) -> R")
    };
    let name = &sig.ident;
    let wrong = |tokens: &dyn quote::ToTokens, why: &str| {
        syn::Error::new_spanned(
            tokens,
            format!("{what} `{name}` {why}: expected `{expected}` where `R: IntoOutcome`"),
        )
    };
    let params = plain_params(
        sig,
        &wrong,
        "cannot be `async` (it is called as the result is made)",
        false,
    )?;
    let want = if output { 2 } else { 1 };
    if params.len() != want || params.len() != sig.inputs.len() {
        let s = if want == 1 { "" } else { "s" };
        return Err(syn::Error::new(
            sig.paren_token.span.join(),
            format!(
                "{what} `{name}` takes {want} parameter{s}: expected `{expected}` where `R: IntoOutcome`"
            ),
        ));
    }
    let is_ref = |ty: &syn::Type, slice: bool| match ty {
        Type::Reference(r) => {
            r.mutability.is_none() && (matches!(&*r.elem, Type::Slice(_)) == slice)
        }
        _ => false,
    };
    if output {
        if !is_ref(params[0], false) {
            return Err(wrong(
                params[0],
                "borrows the run: its first parameter is `&RunOutput`",
            ));
        }
        if !is_ref(params[1], true) {
            return Err(wrong(
                params[1],
                "borrows the history: its second parameter is `&[Message]`",
            ));
        }
    } else if matches!(params[0], Type::Reference(_)) {
        return Err(wrong(params[0], "takes the error by value"));
    }
    check_return(sig, what, implemented)
}

/// The function of an entry's `available` (`fn(&StepView) -> bool`) or
/// `instruction` (`fn(&StepView) -> String`): a plain (not async, not
/// generic) function of one parameter, a shared reference to the step.
pub(super) fn check_step_fn(sig: &syn::Signature, available: bool) -> syn::Result<()> {
    let (what, ret) = if available {
        ("availability rule", "bool")
    } else {
        ("instruction", "String")
    };
    let name = &sig.ident;
    let expected = format!("fn(step: &hookwire::StepView) -> {ret}");
    let wrong = |tokens: &dyn quote::ToTokens, why: &str| {
        syn::Error::new_spanned(
            tokens,
            format!("{what} `{name}` {why}: expected `{expected}`"),
        )
    };
    let params = plain_params(
        sig,
        &wrong,
        "cannot be `async` (it is asked as each step starts)",
        true,
    )?;
    if params.len() != 1 || sig.inputs.len() != 1 {
        return Err(syn::Error::new(
            sig.paren_token.span.join(),
            format!("{what} `{name}` takes 1 parameter, the step: expected `{expected}`"),
        ));
    }
    let is_step = |ty: &Type| match ty {
        Type::Reference(r) if r.mutability.is_none() => {
            single_or_last(&r.elem).is_some_and(|n| n == "StepView")
        }
        _ => false,
    };
    if !is_step(params[0]) {
        return Err(wrong(params[0], "takes the step, `&StepView`"));
    }
    let returns = match &sig.output {
        ReturnType::Type(_, ty) => {
            single_or_last(ty).is_some_and(|n| n == ret)
                && {
                    // `bool` / `String` themselves, not a `Result<..>` or a path
                    // with generic arguments.
                    matches!(&**ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.arguments.is_empty()))
                }
        }
        ReturnType::Default => false,
    };
    if !returns {
        return Err(match &sig.output {
            ReturnType::Type(_, ty) => wrong(
                ty,
                &format!("returns `{}`, not `{ret}`", crate::lower::show_type(ty)),
            ),
            ReturnType::Default => syn::Error::new(
                sig.paren_token.span.join(),
                format!("{what} `{name}` returns nothing: expected `{expected}`"),
            ),
        });
    }
    Ok(())
}

/// The typed parameters of a plain function: not `async` (`wrong` with
/// `not_async`), not generic (lifetimes allowed when `lifetimes`).
fn plain_params<'s>(
    sig: &'s syn::Signature,
    wrong: &dyn Fn(&dyn quote::ToTokens, &str) -> syn::Error,
    not_async: &str,
    lifetimes: bool,
) -> syn::Result<Vec<&'s syn::Type>> {
    if let Some(a) = &sig.asyncness {
        return Err(wrong(a, not_async));
    }
    let generic = sig
        .generics
        .params
        .iter()
        .find(|p| !(lifetimes && matches!(p, syn::GenericParam::Lifetime(_))));
    if let Some(g) = generic {
        return Err(wrong(g, "cannot be generic"));
    }
    Ok(sig
        .inputs
        .iter()
        .filter_map(|i| match i {
            syn::FnArg::Typed(t) => Some(&*t.ty),
            syn::FnArg::Receiver(_) => None,
        })
        .collect())
}

fn check_return(
    sig: &syn::Signature,
    what: &str,
    implemented: impl Fn(&str) -> bool,
) -> syn::Result<()> {
    let name = &sig.ident;
    let advice = format!(
        "a {what} returns `String`, `&'static str`, a number, a `bool`, `ToolResult`, `Json<T>` (any `T: Serialize`), a type of this file that implements `IntoOutcome`, or a `Result` of one of them"
    );
    let ty = match &sig.output {
        ReturnType::Type(_, ty) => ty,
        ReturnType::Default => {
            return Err(syn::Error::new(
                sig.paren_token.span.join(),
                format!("{what} `{name}` returns nothing, but the model needs an answer: {advice}"),
            ));
        }
    };
    fn ok(ty: &Type, implemented: &dyn Fn(&str) -> bool) -> bool {
        match ty {
            Type::Group(g) => ok(&g.elem, implemented),
            Type::Paren(p) => ok(&p.elem, implemented),
            Type::Reference(r) => {
                r.mutability.is_none()
                    && r.lifetime.as_ref().is_some_and(|l| l.ident == "static")
                    && matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str"))
            }
            Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return false;
                };
                let name = last.ident.to_string();
                if name == "Result" {
                    return match &last.arguments {
                        PathArguments::AngleBracketed(a) => match a.args.first() {
                            Some(GenericArgument::Type(t)) => ok(t, implemented),
                            _ => false,
                        },
                        _ => false,
                    };
                }
                RETURNS.contains(&name.as_str()) || implemented(&name)
            }
            _ => false,
        }
    }
    if ok(ty, &implemented) {
        return Ok(());
    }
    Err(syn::Error::new_spanned(
        ty,
        format!(
            "{what} `{name}` cannot return `{}`: {advice}; wrap a value that is `Serialize` in `hookwire::Json(..)`",
            crate::lower::show_type(ty)
        ),
    ))
}

/// A tool's parameters are named in the generated code as written, so the
/// context and `Dep<T>` must be written as such, not through an alias of
/// the file (the alias is followed for the check, not in the adapter).
pub(super) fn same_tool_params(
    written: &syn::Signature,
    resolved: &syn::Signature,
) -> syn::Result<()> {
    use crate::lower::{ToolParam, tool_params};
    let before = tool_params(written, false);
    let after = tool_params(resolved, false)?;
    let kinds = |params: &[ToolParam]| -> Vec<u8> {
        params
            .iter()
            .map(|p| match p {
                ToolParam::Context => 0,
                ToolParam::Dep { .. } => 1,
                ToolParam::Arg { .. } => 2,
            })
            .collect()
    };
    let differs = before.as_ref().map_or(true, |b| kinds(b) != kinds(&after));
    if !differs {
        return Ok(());
    }
    let position = match before {
        Ok(b) => kinds(&b)
            .iter()
            .zip(kinds(&after))
            .position(|(x, y)| *x != y),
        Err(_) => kinds(&after).iter().position(|k| *k != 2),
    };
    let inputs: Vec<&syn::FnArg> = written.inputs.iter().collect();
    let (Some(i), Some(syn::FnArg::Typed(arg))) =
        (position, position.and_then(|i| inputs.get(i).copied()))
    else {
        return tool_params(written, false).map(drop);
    };
    let wanted = match kinds(&after).get(i) {
        Some(0) => "`&ToolContext` (or `&hookwire::ToolContext`)".to_owned(),
        _ => "`Dep<T>` (or `hookwire::Dep<T>`)".to_owned(),
    };
    Err(syn::Error::new_spanned(
        &arg.ty,
        format!(
            "parameter {} of tool `{}` reaches hookwire's type through an alias of this file, which the generated code does not follow: write {wanted}",
            i + 1,
            written.ident
        ),
    ))
}

#[cfg(test)]
mod child_fn_tests {
    use super::check_child_fn;

    /// Each shape a child's `output` / `on_error` may not have is one error
    /// whose first words say what is wrong.
    #[test]
    fn child_fn_rules() {
        let check = |text: &str, output: bool| {
            let f: syn::ItemFn = syn::parse_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            check_child_fn(&f.sig, output, |_| false)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let ok = [
            ("fn f(out: &RunOutput, h: &[Message]) -> String {}", true),
            (
                "fn f(e: ToolError) -> Result<ToolResult, ToolError> {}",
                false,
            ),
        ];
        for (text, output) in ok {
            assert_eq!(check(text, output), "", "{text}");
        }
        let bad = [
            (
                "async fn f(e: ToolError) -> String {}",
                false,
                "on_error mapping `f` cannot be `async`",
            ),
            (
                "fn f<T>(e: T) -> String {}",
                false,
                "on_error mapping `f` cannot be generic",
            ),
            (
                "fn f(e: &ToolError) -> String {}",
                false,
                "on_error mapping `f` takes the error by value",
            ),
            (
                "fn f(a: ToolError, b: u8) -> String {}",
                false,
                "on_error mapping `f` takes 1 parameter",
            ),
            (
                "fn f(out: &RunOutput) -> String {}",
                true,
                "output extractor `f` takes 2 parameters",
            ),
            (
                "fn f(out: &RunOutput, h: Vec<Message>) -> String {}",
                true,
                "output extractor `f` borrows the history",
            ),
            (
                "fn f(out: &RunOutput, h: &[Message]) {}",
                true,
                "output extractor `f` returns nothing",
            ),
            (
                "fn f(e: ToolError) -> Vec<u8> {}",
                false,
                "on_error mapping `f` cannot return `Vec<u8>`",
            ),
        ];
        for (text, output, expected) in bad {
            let e = check(text, output);
            assert!(e.starts_with(expected), "{text}: {e}");
        }
    }
}
