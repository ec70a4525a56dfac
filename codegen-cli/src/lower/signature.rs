//! What the runtime accepts: the signature rules for tool functions and for
//! each kind of hook, checked on `syn` syntax trees.
//!
//! Both front ends call these checks: the `#[tool]`/`#[hook]` macros at
//! expansion time and `cardgen` when it loads a card, so the two can never
//! disagree about what a valid hook is. Every error is a [`syn::Error`]
//! spanned on the offending token, whose first line says what is wrong and
//! the expected signature in one sentence.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, PatType, PathArguments, ReturnType, Signature, Type};

/// The kinds of hook a function can be, told apart by its signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookKind {
    /// `async fn(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome`.
    Around,
    /// `async fn(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision`
    /// (or `Result<Decision, E>`).
    Pre,
    /// `async fn(cx: &mut ToolContext, outcome: &mut Outcome)` (or
    /// `-> Result<(), E>`).
    Post,
}

impl HookKind {
    /// A short name for messages: `around`, `pre` or `post`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Around => "around",
            Self::Pre => "pre",
            Self::Post => "post",
        }
    }

    /// The signature the runtime expects for a hook of this kind named
    /// `name`, as one line of Rust.
    pub fn expected(self, name: &str) -> String {
        match self {
            Self::Around => format!(
                "async fn {name}(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome"
            ),
            Self::Pre => {
                format!("async fn {name}(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision")
            }
            Self::Post => {
                format!("async fn {name}(cx: &mut ToolContext, outcome: &mut Outcome)")
            }
        }
    }
}

impl std::fmt::Display for HookKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a pre or post hook reports failure, read off its return type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fallible {
    /// `-> Decision` / `-> ()`.
    No,
    /// `-> Result<Decision, E>` / `-> Result<(), E>`.
    Yes,
}

/// A hook signature that passed the checks.
#[derive(Debug, Clone)]
pub(crate) struct HookSig {
    pub kind: HookKind,
    pub fallible: Fallible,
    /// For around hooks: the name of the handler type parameter of `Next`.
    pub handler_param: Option<syn::Ident>,
}

/// One parameter of a tool function, as the generated argument struct sees
/// it.
#[derive(Debug, Clone)]
pub(crate) enum ToolParam {
    /// The `&ToolContext` parameter.
    Context,
    /// A dependency, `name: Dep<T>`: built from the agent's dependencies
    /// (`T: FromRef<Deps>`), not part of the arguments.
    Dep {
        ident: syn::Ident,
        /// The `T` of `Dep<T>`.
        ty: Box<Type>,
        /// The whole parameter type as written (for spans).
        written: Box<Type>,
    },
    /// A model-supplied argument.
    Arg {
        ident: syn::Ident,
        ty: Box<Type>,
        docs: Vec<String>,
    },
}

fn plain(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => plain(&g.elem),
        Type::Paren(p) => plain(&p.elem),
        other => other,
    }
}

/// The last path segment's name of a type, if it is a plain path.
fn last_ident(ty: &Type) -> Option<&syn::PathSegment> {
    match plain(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    last_ident(ty).is_some_and(|s| s.ident == name)
}

/// `Option<T>` (or `std::option::Option<T>`): the `T`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    wrapped(ty, "Option")
}

/// `Dep<T>` (or `hookwire::Dep<T>`): the `T`.
pub(crate) fn dep_inner(ty: &Type) -> Option<&Type> {
    wrapped(ty, "Dep")
}

/// `Name<T>` (by the last path segment): the `T`.
fn wrapped<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let seg = last_ident(ty)?;
    if seg.ident != name {
        return None;
    }
    match &seg.arguments {
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
            Some(GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The generic type arguments of the last segment.
fn type_args(ty: &Type) -> Vec<&Type> {
    match last_ident(ty).map(|s| &s.arguments) {
        Some(PathArguments::AngleBracketed(a)) => a
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn is_unit(ty: &Type) -> bool {
    matches!(plain(ty), Type::Tuple(t) if t.elems.is_empty())
}

/// `&mut X` / `&X`: (is mut, X).
fn reference(ty: &Type) -> Option<(bool, &Type)> {
    match plain(ty) {
        Type::Reference(r) => Some((r.mutability.is_some(), &r.elem)),
        _ => None,
    }
}

pub(crate) fn show(tokens: &impl ToTokens) -> String {
    let text = tokens.to_token_stream().to_string();
    // `& mut ToolContext` -> `&mut ToolContext`, `Next < '_ >` -> `Next<'_>`.
    text.replace("& mut ", "&mut ")
        .replace("& ", "&")
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace("' _", "'_")
}

fn typed_args(sig: &Signature) -> syn::Result<Vec<&PatType>> {
    sig.inputs
        .iter()
        .map(|arg| match arg {
            FnArg::Typed(t) => Ok(t),
            FnArg::Receiver(r) => Err(syn::Error::new_spanned(
                r,
                format!(
                    "`{}` takes `self`, but a hookwire hook or tool is a free function: remove the receiver",
                    sig.ident
                ),
            )),
        })
        .collect()
}

fn reject_modifiers(sig: &Signature, what: &str, expected: &str) -> syn::Result<()> {
    if let Some(c) = &sig.constness {
        return Err(syn::Error::new_spanned(
            c,
            format!(
                "{what} `{}` cannot be `const`: expected `{expected}`",
                sig.ident
            ),
        ));
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        return Err(syn::Error::new_spanned(
            u,
            format!(
                "{what} `{}` cannot be `unsafe`: expected `{expected}`",
                sig.ident
            ),
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(syn::Error::new_spanned(
            abi,
            format!(
                "{what} `{}` cannot have an ABI: expected `{expected}`",
                sig.ident
            ),
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(syn::Error::new_spanned(
            v,
            format!(
                "{what} `{}` cannot be variadic: expected `{expected}`",
                sig.ident
            ),
        ));
    }
    Ok(())
}

/// Where to point when a parameter is missing: the parentheses.
fn params_span(sig: &Signature) -> Span {
    sig.paren_token.span.join()
}

/// Tells what kind of hook `sig` is, and checks that it is exactly what the
/// runtime accepts for that kind.
///
/// Three parameters make an around hook; two make a pre hook when the second
/// is `&mut ToolArgs` and a post hook when it is `&mut Outcome`. The error
/// for anything else is spanned on the offending token and starts with what
/// is wrong and the expected signature.
///
/// ```
/// use hookwire_codegen::lower::{classify_hook, HookKind};
///
/// let f: syn::ItemFn = syn::parse_quote! {
///     async fn deny_rm(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision { todo!() }
/// };
/// assert_eq!(classify_hook(&f.sig).unwrap(), HookKind::Pre);
///
/// let f: syn::ItemFn = syn::parse_quote! {
///     fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome { todo!() }
/// };
/// let err = classify_hook(&f.sig).unwrap_err().to_string();
/// assert!(err.starts_with("hook `audit` must be an `async fn`"));
/// ```
pub fn classify_hook(sig: &Signature) -> syn::Result<HookKind> {
    check_hook(sig).map(|s| s.kind)
}

pub(crate) fn check_hook(sig: &Signature) -> syn::Result<HookSig> {
    let name = sig.ident.to_string();
    let args = typed_args(sig)?;
    let kind = match args.len() {
        3 => HookKind::Around,
        2 => {
            let second = &args[1].ty;
            match reference(second) {
                Some((_, inner)) if is_named(inner, "ToolArgs") => HookKind::Pre,
                Some((_, inner)) if is_named(inner, "Outcome") || is_named(inner, "Result") => {
                    HookKind::Post
                }
                None if is_named(second, "ToolArgs") => {
                    return Err(syn::Error::new(
                        params_span(sig),
                        format!(
                            "around hook `{name}` is missing its `next` parameter: expected `{}`\n\
                             help: or, to act before the call only, write a pre hook: `{}`",
                            HookKind::Around.expected(&name),
                            HookKind::Pre.expected(&name),
                        ),
                    ));
                }
                _ => {
                    return Err(syn::Error::new_spanned(
                        second,
                        format!(
                            "the second parameter of hook `{name}` must be `&mut ToolArgs` (a pre hook) or `&mut Outcome` (a post hook), found `{}`: expected `{}` or `{}`",
                            show(second),
                            HookKind::Pre.expected(&name),
                            HookKind::Post.expected(&name),
                        ),
                    ));
                }
            }
        }
        n => {
            let span = if n == 0 {
                params_span(sig)
            } else {
                sig.inputs.span()
            };
            return Err(syn::Error::new(
                span,
                format!(
                    "hook `{name}` takes {n} parameter{}, but a hook takes 3 (around) or 2 (pre/post): expected `{}`\n\
                     help: a pre hook is `{}`, a post hook is `{}`",
                    if n == 1 { "" } else { "s" },
                    HookKind::Around.expected(&name),
                    HookKind::Pre.expected(&name),
                    HookKind::Post.expected(&name),
                ),
            ));
        }
    };
    let expected = kind.expected(&name);
    reject_modifiers(sig, &format!("{kind} hook"), &expected)?;
    if sig.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            sig.fn_token,
            format!("hook `{name}` must be an `async fn`: expected `{expected}`"),
        ));
    }

    // The context.
    let cx = &args[0].ty;
    match reference(cx) {
        Some((true, inner)) if is_named(inner, "ToolContext") => {}
        _ => {
            return Err(syn::Error::new_spanned(
                cx,
                format!(
                    "the first parameter of hook `{name}` must be `&mut ToolContext`, found `{}`: expected `{expected}`",
                    show(cx)
                ),
            ));
        }
    }

    let mut handler_param = None;
    let fallible = match kind {
        HookKind::Around => {
            let args_ty = &args[1].ty;
            if let Some((m, inner)) = reference(args_ty)
                && is_named(inner, "ToolArgs")
            {
                return Err(syn::Error::new_spanned(
                    args_ty,
                    format!(
                        "around hook `{name}` must take `args: ToolArgs` by value (it hands them to `next`), found `{}`: expected `{expected}`{}",
                        show(args_ty),
                        if m {
                            format!(
                                "\nhelp: to rewrite arguments and go on, write a pre hook instead: `{}`",
                                HookKind::Pre.expected(&name)
                            )
                        } else {
                            String::new()
                        }
                    ),
                ));
            }
            if !is_named(args_ty, "ToolArgs") {
                return Err(syn::Error::new_spanned(
                    args_ty,
                    format!(
                        "the second parameter of around hook `{name}` must be `ToolArgs`, found `{}`: expected `{expected}`",
                        show(args_ty)
                    ),
                ));
            }
            let next_ty = &args[2].ty;
            handler_param = Some(check_next(next_ty, &name, &expected)?);
            match &sig.output {
                ReturnType::Type(_, ty) if is_outcome(ty) => {}
                ReturnType::Type(_, ty) => {
                    return Err(syn::Error::new_spanned(
                        ty,
                        format!(
                            "around hook `{name}` must return `Outcome`, found `{}`: expected `{expected}`",
                            show(ty)
                        ),
                    ));
                }
                ReturnType::Default => {
                    return Err(syn::Error::new(
                        params_span(sig),
                        format!(
                            "around hook `{name}` must return `Outcome` (the result of `next.run(cx, args).await`, or one of its own): expected `{expected}`"
                        ),
                    ));
                }
            }
            check_generics(sig, handler_param.as_ref(), &name, &expected)?;
            Fallible::No
        }
        HookKind::Pre => {
            let args_ty = &args[1].ty;
            if !matches!(reference(args_ty), Some((true, _))) {
                return Err(syn::Error::new_spanned(
                    args_ty,
                    format!(
                        "pre hook `{name}` must take `args: &mut ToolArgs` (so it can rewrite them), found `{}`: expected `{expected}`",
                        show(args_ty)
                    ),
                ));
            }
            check_generics(sig, None, &name, &expected)?;
            let bad = |span: &dyn ToTokens, found: String| {
                syn::Error::new_spanned(
                    span,
                    format!(
                        "pre hook `{name}` must return `Decision` or `Result<Decision, E>`, found `{found}`: expected `{expected}`"
                    ),
                )
            };
            match &sig.output {
                ReturnType::Default => {
                    return Err(syn::Error::new(
                        params_span(sig),
                        format!(
                            "pre hook `{name}` must return a `Decision` (`Decision::Continue` to go on): expected `{expected}`"
                        ),
                    ));
                }
                ReturnType::Type(_, ty) if is_named(ty, "Decision") => Fallible::No,
                ReturnType::Type(_, ty) if is_named(ty, "Result") => {
                    let targs = type_args(ty);
                    match targs.first() {
                        Some(t) if is_named(t, "Decision") && targs.len() == 2 => Fallible::Yes,
                        _ => return Err(bad(ty, show(ty))),
                    }
                }
                ReturnType::Type(_, ty) => return Err(bad(ty, show(ty))),
            }
        }
        HookKind::Post => {
            let out_ty = &args[1].ty;
            match reference(out_ty) {
                Some((true, inner)) if is_outcome(inner) => {}
                _ => {
                    return Err(syn::Error::new_spanned(
                        out_ty,
                        format!(
                            "post hook `{name}` must take `outcome: &mut Outcome`, found `{}`: expected `{expected}`",
                            show(out_ty)
                        ),
                    ));
                }
            }
            check_generics(sig, None, &name, &expected)?;
            match &sig.output {
                ReturnType::Default => Fallible::No,
                ReturnType::Type(_, ty) if is_unit(ty) => Fallible::No,
                ReturnType::Type(_, ty)
                    if is_named(ty, "Result")
                        && type_args(ty).len() == 2
                        && type_args(ty).first().is_some_and(|t| is_unit(t)) =>
                {
                    Fallible::Yes
                }
                ReturnType::Type(_, ty) => {
                    return Err(syn::Error::new_spanned(
                        ty,
                        format!(
                            "post hook `{name}` must return `()` or `Result<(), E>` (it changes the outcome in place), found `{}`: expected `{expected}`",
                            show(ty)
                        ),
                    ));
                }
            }
        }
    };
    Ok(HookSig {
        kind,
        fallible,
        handler_param,
    })
}

fn is_outcome(ty: &Type) -> bool {
    if is_named(ty, "Outcome") {
        return true;
    }
    let targs = type_args(ty);
    is_named(ty, "Result")
        && targs.len() == 2
        && is_named(targs[0], "ToolResult")
        && is_named(targs[1], "ToolError")
}

/// `Next`, `Next<'_>`, `Next<'_, N>`: returns the handler parameter's name.
fn check_next(ty: &Type, name: &str, expected: &str) -> syn::Result<syn::Ident> {
    let wrong = |found: &Type| {
        syn::Error::new_spanned(
            found,
            format!(
                "the third parameter of around hook `{name}` must be `next: Next` (the rest of the chain), found `{}`: expected `{expected}`",
                show(found)
            ),
        )
    };
    let Some(seg) = last_ident(ty) else {
        return Err(wrong(ty));
    };
    if seg.ident != "Next" {
        return Err(wrong(ty));
    }
    let mut handler = None;
    if let PathArguments::AngleBracketed(a) = &seg.arguments {
        for arg in &a.args {
            match arg {
                GenericArgument::Lifetime(_) => {}
                GenericArgument::Type(t) if handler.is_none() => match last_ident(t) {
                    Some(s) if s.arguments.is_empty() => handler = Some(s.ident.clone()),
                    _ => return Err(wrong(ty)),
                },
                _ => return Err(wrong(ty)),
            }
        }
    }
    Ok(handler.unwrap_or_else(|| syn::Ident::new("__HookwireNext", Span::call_site())))
}

fn check_generics(
    sig: &Signature,
    handler: Option<&syn::Ident>,
    name: &str,
    expected: &str,
) -> syn::Result<()> {
    for param in &sig.generics.params {
        let ok = match (param, handler) {
            (syn::GenericParam::Type(t), Some(h)) => t.ident == *h,
            _ => false,
        };
        if !ok {
            return Err(syn::Error::new_spanned(
                param,
                format!(
                    "hook `{name}` cannot have generic parameters other than the handler type of `Next`: expected `{expected}`"
                ),
            ));
        }
    }
    if let Some(w) = &sig.generics.where_clause {
        return Err(syn::Error::new_spanned(
            w,
            format!("hook `{name}` cannot have a `where` clause: expected `{expected}`"),
        ));
    }
    Ok(())
}

/// The shape the runtime accepts for a tool function, in one line.
pub const TOOL_EXPECTED: &str = "fn name(param: T, ...) -> R` or `async fn name(cx: &ToolContext, param: T, ...) -> R` where each `T: Deserialize + JsonSchema` and `R: IntoOutcome";

/// Checks that `sig` is a function the runtime can run as a tool: a free
/// function, sync or async, not generic, whose parameters are plain names
/// with owned types (each becomes a field of the argument object), and
/// optionally one `&ToolContext`. In `strict` mode no parameter may be an
/// `Option`.
///
/// Whether each parameter type is `Deserialize + JsonSchema` and whether
/// the return type is `IntoOutcome` are checked by the compiler on the
/// generated code (spanned on the user's tokens).
///
/// ```
/// let f: syn::ItemFn = syn::parse_quote! { fn add(a: i64, b: &str) -> String { todo!() } };
/// let err = hookwire_codegen::lower::check_tool(&f.sig, false).unwrap_err().to_string();
/// assert!(err.starts_with("parameter `b` of tool `add` is a reference"));
/// ```
pub fn check_tool(sig: &Signature, strict: bool) -> syn::Result<()> {
    tool_params(sig, strict).map(drop)
}

pub(crate) fn tool_params(sig: &Signature, strict: bool) -> syn::Result<Vec<ToolParam>> {
    let name = sig.ident.to_string();
    let expected = TOOL_EXPECTED;
    reject_modifiers(sig, "tool", expected)?;
    if let Some(p) = sig.generics.params.first() {
        return Err(syn::Error::new_spanned(
            p,
            format!(
                "tool `{name}` cannot be generic (its argument schema must be known): expected `{expected}`"
            ),
        ));
    }
    if let Some(w) = &sig.generics.where_clause {
        return Err(syn::Error::new_spanned(
            w,
            format!("tool `{name}` cannot have a `where` clause: expected `{expected}`"),
        ));
    }
    let mut out = Vec::new();
    let mut seen_cx = false;
    for arg in typed_args(sig)? {
        let ty = &*arg.ty;
        if let Some((m, inner)) = reference(ty)
            && is_named(inner, "ToolContext")
        {
            if m {
                return Err(syn::Error::new_spanned(
                    ty,
                    format!(
                        "tool `{name}` receives the context as `&ToolContext`, not `&mut ToolContext` (only hooks may change it): expected `{expected}`"
                    ),
                ));
            }
            if seen_cx {
                return Err(syn::Error::new_spanned(
                    ty,
                    format!("tool `{name}` takes the context twice: expected `{expected}`"),
                ));
            }
            seen_cx = true;
            out.push(ToolParam::Context);
            continue;
        }
        let ident = match &*arg.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    format!(
                        "a parameter of tool `{name}` must be a plain name (it becomes the JSON field of that name), found `{}`: expected `{expected}`",
                        show(other)
                    ),
                ));
            }
        };
        if let Some(inner) = dep_inner(ty) {
            out.push(ToolParam::Dep {
                ident: strip_raw(&ident),
                ty: Box::new(inner.clone()),
                written: Box::new(ty.clone()),
            });
            continue;
        }
        if reference(ty).is_some() {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "parameter `{ident}` of tool `{name}` is a reference (`{}`), but tool arguments are deserialized into owned values: use an owned type such as `String` or `Vec<T>`",
                    show(ty)
                ),
            ));
        }
        if let Type::ImplTrait(_) = plain(ty) {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "parameter `{ident}` of tool `{name}` cannot be `impl Trait` (its JSON Schema must be known): use a concrete type that implements `Deserialize + JsonSchema`"
                ),
            ));
        }
        if option_inner(ty).is_some() && strict {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "strict tool `{name}` cannot take the optional parameter `{ident}: {}`: in strict mode every parameter is required, so use `{}` or drop `strict`",
                    show(ty),
                    option_inner(ty).map(show).unwrap_or_default()
                ),
            ));
        }
        let docs = arg.attrs.iter().filter_map(doc_line).collect();
        out.push(ToolParam::Arg {
            ident: strip_raw(&ident),
            ty: Box::new(ty.clone()),
            docs,
        });
    }
    Ok(out)
}

fn strip_raw(ident: &syn::Ident) -> syn::Ident {
    // Keep raw identifiers as written: `r#type` stays a valid field name.
    ident.clone()
}

/// The text of one `#[doc = "..."]` attribute.
pub(crate) fn doc_line(attr: &syn::Attribute) -> Option<String> {
    if !attr.path().is_ident("doc") {
        return None;
    }
    match &attr.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// Joins doc lines the way rustdoc shows them: one leading space dropped
/// from each line, surrounding blank lines trimmed.
pub(crate) fn join_docs(lines: &[String]) -> String {
    let text: Vec<&str> = lines
        .iter()
        .flat_map(|l| l.split('\n'))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end())
        .collect();
    text.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(src: &str) -> Signature {
        let f: syn::ItemFn = syn::parse_str(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        f.sig
    }

    fn err(src: &str) -> String {
        match check_hook(&sig(src)) {
            Ok(s) => panic!("accepted as {:?}: {src}", s.kind),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn accepts_the_three_kinds() {
        let around = "async fn a(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {}";
        assert_eq!(classify_hook(&sig(around)).ok(), Some(HookKind::Around));
        let around = "async fn a<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> hookwire::Outcome {}";
        let checked = check_hook(&sig(around)).ok();
        assert_eq!(
            checked.and_then(|c| c.handler_param).map(|i| i.to_string()),
            Some("N".to_owned())
        );
        let pre = "async fn p(_cx: &mut ToolContext, args: &mut ToolArgs) -> Result<Decision, HookError> {}";
        let checked = check_hook(&sig(pre)).ok();
        assert_eq!(checked.as_ref().map(|c| c.kind), Some(HookKind::Pre));
        assert_eq!(checked.map(|c| c.fallible), Some(Fallible::Yes));
        let post = "async fn p(cx: &mut ToolContext, outcome: &mut Outcome) {}";
        assert_eq!(classify_hook(&sig(post)).ok(), Some(HookKind::Post));
        let post = "async fn p(cx: &mut ToolContext, outcome: &mut Result<ToolResult, ToolError>) -> Result<(), String> {}";
        assert_eq!(classify_hook(&sig(post)).ok(), Some(HookKind::Post));
    }

    #[test]
    fn first_line_says_what_is_wrong_and_what_is_expected() {
        let e = err("fn a(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {}");
        assert_eq!(
            e,
            "hook `a` must be an `async fn`: expected `async fn a(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome`"
        );
        let e = err("async fn a(cx: &ToolContext, args: ToolArgs, next: Next) -> Outcome {}");
        assert!(
            e.starts_with(
                "the first parameter of hook `a` must be `&mut ToolContext`, found `&ToolContext`"
            ),
            "{e}"
        );
        let e =
            err("async fn a(cx: &mut ToolContext, args: &mut ToolArgs, next: Next) -> Outcome {}");
        assert!(
            e.starts_with("around hook `a` must take `args: ToolArgs` by value"),
            "{e}"
        );
        let e = err("async fn a(cx: &mut ToolContext, args: ToolArgs) -> Outcome {}");
        assert!(
            e.starts_with("around hook `a` is missing its `next` parameter"),
            "{e}"
        );
        let e = err("async fn a(cx: &mut ToolContext, args: ToolArgs, next: u32) -> Outcome {}");
        assert!(e.contains("must be `next: Next`"), "{e}");
        let e = err("async fn a(cx: &mut ToolContext, args: ToolArgs, next: Next) -> String {}");
        assert!(
            e.starts_with("around hook `a` must return `Outcome`, found `String`"),
            "{e}"
        );
        let e = err("async fn a(cx: &mut ToolContext) {}");
        assert!(
            e.starts_with("hook `a` takes 1 parameter, but a hook takes 3"),
            "{e}"
        );
        let e = err("async fn a(cx: &mut ToolContext, args: &mut ToolArgs) -> bool {}");
        assert!(e.starts_with("pre hook `a` must return `Decision`"), "{e}");
        let e = err("async fn a(cx: &mut ToolContext, args: &mut ToolArgs) {}");
        assert!(
            e.starts_with("pre hook `a` must return a `Decision`"),
            "{e}"
        );
        let e = err("async fn a(cx: &mut ToolContext, o: &mut Outcome) -> Outcome {}");
        assert!(e.starts_with("post hook `a` must return `()`"), "{e}");
        let e = err("async fn a(cx: &mut ToolContext, o: &mut String) {}");
        assert!(
            e.starts_with("the second parameter of hook `a` must be"),
            "{e}"
        );
    }

    #[test]
    fn a_referenced_around_hook_must_declare_its_handler() {
        let f: syn::ItemFn = syn::parse_quote! {
            pub async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
                next.run(cx, args).await
            }
        };
        let mut opts = super::super::HookOptions::new(syn::parse_quote!(::hookwire));
        opts.fn_path = Some(syn::parse_quote!(hooks::audit));
        let err = super::super::hook(&f, &opts)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.starts_with("around hook `audit` must be generic"),
            "{err}"
        );
        let f: syn::ItemFn = syn::parse_quote! {
            pub async fn audit<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
                next.run(cx, args).await
            }
        };
        assert!(super::super::hook(&f, &opts).is_ok());
        // As a macro (the body moves into the generated type), `Next` alone is fine.
        let f: syn::ItemFn = syn::parse_quote! {
            pub async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
                next.run(cx, args).await
            }
        };
        assert!(
            super::super::hook(
                &f,
                &super::super::HookOptions::new(syn::parse_quote!(::hookwire))
            )
            .is_ok()
        );
    }

    #[test]
    fn tool_rules() {
        let ok = tool_params(
            &sig("async fn t(cx: &ToolContext, a: i64, b: Option<String>) -> String {}"),
            false,
        );
        assert_eq!(ok.map(|p| p.len()).ok(), Some(3));
        let e = tool_params(&sig("fn t(a: Option<String>) -> String {}"), true)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.starts_with("strict tool `t` cannot take the optional parameter `a: Option<String>`"),
            "{e}"
        );
        let e = tool_params(&sig("fn t<T>(a: T) -> String {}"), false)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.starts_with("tool `t` cannot be generic"), "{e}");
        let e = tool_params(&sig("fn t((a, b): (i64, i64)) -> String {}"), false)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.starts_with("a parameter of tool `t` must be a plain name"),
            "{e}"
        );
    }
}
