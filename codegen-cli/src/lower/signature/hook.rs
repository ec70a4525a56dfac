//! The signature rules of hooks: which kind a function's parameters make
//! it, then the rules of that kind (parameters, return type, generics).

use super::*;

/// Checks a hook function's signature: its kind, whether it returns a
/// `Result`, and an around hook's handler type parameter.
pub(crate) fn check_hook(sig: &Signature) -> syn::Result<HookSig> {
    let name = sig.ident.to_string();
    super::reject_cfg_params(sig, "hook")?;
    let args = typed_args(sig)?;
    let kind = hook_kind(sig, &args, &name)?;
    let expected = expected_signature(kind, &name);
    reject_modifiers(sig, &format!("{kind} hook"), &expected, false)?;
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

    let hook = Hook {
        sig,
        args: &args,
        name: &name,
        expected: &expected,
    };
    let mut handler_param = None;
    let fallible = match kind {
        HookKind::Around => {
            handler_param = hook.around_handler()?;
            Fallible::No
        }
        HookKind::Pre => hook.pre_fallible()?,
        HookKind::Post => hook.post_fallible()?,
    };
    Ok(HookSig {
        kind,
        fallible,
        handler_param,
        typed: tool_args_type(&args[1].ty).filter(|_| kind == HookKind::Pre),
    })
}

/// The kind of hook the parameters make: three are an around hook, two a
/// pre or post hook, told apart by the second one's type.
fn hook_kind(sig: &Signature, args: &[&PatType], name: &str) -> syn::Result<HookKind> {
    match args.len() {
        3 => Ok(HookKind::Around),
        2 => {
            let second = &args[1].ty;
            match reference(second) {
                Some((_, inner)) if is_named(inner, "ToolArgs") => Ok(HookKind::Pre),
                Some((_, inner)) if is_named(inner, "Outcome") || is_named(inner, "Result") => {
                    Ok(HookKind::Post)
                }
                // A tool's arguments as their Rust type: a typed pre hook.
                Some(_) if tool_args_type(second).is_some() => Ok(HookKind::Pre),
                None if is_named(second, "ToolArgs") => Err(syn::Error::new(
                    params_span(sig),
                    format!(
                        "around hook `{name}` is missing its `next` parameter: expected `{}`\n\
                         help: or, to act before the call only, write a pre hook: `{}`",
                        expected_signature(HookKind::Around, name),
                        expected_signature(HookKind::Pre, name),
                    ),
                )),
                _ => Err(syn::Error::new_spanned(
                    second,
                    format!(
                        "the second parameter of hook `{name}` must be `&mut ToolArgs` (a pre hook), a tool's arguments as their type (`&mut ArgsOf<tool>`, a typed pre hook) or `&mut Outcome` (a post hook), found `{}`: expected `{}` or `{}`",
                        show(second),
                        expected_signature(HookKind::Pre, name),
                        expected_signature(HookKind::Post, name),
                    ),
                )),
            }
        }
        n => {
            let span = if n == 0 {
                params_span(sig)
            } else {
                sig.inputs.span()
            };
            Err(syn::Error::new(
                span,
                format!(
                    "hook `{name}` takes {n} parameter{}, but a hook takes 3 (around) or 2 (pre/post): expected `{}`\n\
                     help: a pre hook is `{}`, a post hook is `{}`",
                    if n == 1 { "" } else { "s" },
                    expected_signature(HookKind::Around, name),
                    expected_signature(HookKind::Pre, name),
                    expected_signature(HookKind::Post, name),
                ),
            ))
        }
    }
}

/// A hook function of a known kind whose context parameter is checked.
struct Hook<'a> {
    sig: &'a Signature,
    args: &'a [&'a PatType],
    name: &'a str,
    /// The signature its kind expects, as errors quote it.
    expected: &'a str,
}

impl Hook<'_> {
    /// An around hook's rules (`args: ToolArgs`, `next: Next<'_, H>`, an
    /// `Outcome`): gives the handler type parameter, if it names one.
    fn around_handler(&self) -> syn::Result<Option<syn::Ident>> {
        let Self {
            sig,
            args,
            name,
            expected,
        } = *self;
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
                            expected_signature(HookKind::Pre, name)
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
        let handler_param = check_next(next_ty, name, expected)?;
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
        check_generics(sig, handler_param.as_ref(), name, expected)?;
        Ok(handler_param)
    }

    /// A pre hook's rules (`args: &mut ToolArgs`, a `Decision` or a
    /// `Result<Decision, E>`): gives whether it is fallible.
    fn pre_fallible(&self) -> syn::Result<Fallible> {
        let Self {
            sig,
            args,
            name,
            expected,
        } = *self;
        let args_ty = &args[1].ty;
        let typed = tool_args_type(args_ty).is_some();
        if !typed && !matches!(reference(args_ty), Some((true, _))) {
            return Err(syn::Error::new_spanned(
                args_ty,
                format!(
                    "pre hook `{name}` must take `args: &mut ToolArgs` (so it can rewrite them), found `{}`: expected `{expected}`",
                    show(args_ty)
                ),
            ));
        }
        check_generics(sig, None, name, expected)?;
        // A typed pre hook mistaken for a post hook (`&mut Outcom`) reads
        // as one here: say what a post hook takes.
        let typed_help = if typed {
            format!(
                "\nhelp: `{name}` takes a tool's arguments as their Rust type (`{}`), which makes it a typed pre hook; a post hook takes `outcome: &mut Outcome`",
                show(args_ty)
            )
        } else {
            String::new()
        };
        let bad = |span: &dyn ToTokens, found: String| {
            syn::Error::new_spanned(
                span,
                format!(
                    "pre hook `{name}` must return `Decision` or `Result<Decision, E>`, found `{found}`: expected `{expected}`{typed_help}"
                ),
            )
        };
        match &sig.output {
            ReturnType::Default => Err(syn::Error::new(
                params_span(sig),
                format!(
                    "pre hook `{name}` must return a `Decision` (`Decision::Continue` to go on): expected `{expected}`{typed_help}"
                ),
            )),
            ReturnType::Type(_, ty) if is_named(ty, "Decision") => Ok(Fallible::No),
            ReturnType::Type(_, ty) if is_named(ty, "Result") => {
                let targs = type_args(ty);
                match targs.first() {
                    Some(t) if is_named(t, "Decision") && targs.len() == 2 => {
                        check_hook_error(targs[1], name)?;
                        Ok(Fallible::Yes)
                    }
                    _ => Err(bad(ty, show(ty))),
                }
            }
            ReturnType::Type(_, ty) => Err(bad(ty, show(ty))),
        }
    }

    /// A post hook's rules (`outcome: &mut Outcome`, `()` or a
    /// `Result<(), E>`): gives whether it is fallible.
    fn post_fallible(&self) -> syn::Result<Fallible> {
        let Self {
            sig,
            args,
            name,
            expected,
        } = *self;
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
        check_generics(sig, None, name, expected)?;
        match &sig.output {
            ReturnType::Default => Ok(Fallible::No),
            ReturnType::Type(_, ty) if is_unit(ty) => Ok(Fallible::No),
            ReturnType::Type(_, ty)
                if is_named(ty, "Result")
                    && type_args(ty).len() == 2
                    && type_args(ty).first().is_some_and(|t| is_unit(t)) =>
            {
                check_hook_error(type_args(ty)[1], name)?;
                Ok(Fallible::Yes)
            }
            ReturnType::Type(_, ty) => Err(syn::Error::new_spanned(
                ty,
                format!(
                    "post hook `{name}` must return `()` or `Result<(), E>` (it changes the outcome in place), found `{}`: expected `{expected}`",
                    show(ty)
                ),
            )),
        }
    }
}

/// The argument type of a typed pre hook's second parameter: a reference
/// to a named type other than the ones hooks take (`ToolArgs`, `Outcome`,
/// `ToolContext`, `Result`), such as `&mut ArgsOf<refund>`.
fn tool_args_type(ty: &Type) -> Option<TypedArgs> {
    let (mutable, inner) = reference(ty)?;
    let Type::Path(path) = plain(inner) else {
        return None;
    };
    // The types hooks take otherwise, and types that are never a tool's
    // arguments (which are a JSON object: a struct or a map).
    const NOT_ARGUMENTS: &[&str] = &[
        "ToolArgs",
        "Outcome",
        "Result",
        "ToolContext",
        "ToolResult",
        "String",
        "str",
        "Vec",
        "Option",
        "Box",
        "Value",
    ];
    if path.qself.is_some()
        || NOT_ARGUMENTS
            .iter()
            .chain(SCALARS)
            .any(|known| is_named(inner, known))
    {
        return None;
    }
    Some(TypedArgs {
        ty: inner.clone(),
        mutable,
    })
}

/// The error of a fallible pre or post hook becomes a `HookError`, which
/// takes any `std::error::Error + Send + Sync + 'static`: the types known
/// not to be one are an error here rather than in the generated code.
fn check_hook_error(ty: &Type, name: &str) -> syn::Result<()> {
    let plain_ty = plain(ty);
    let not_error = match plain_ty {
        Type::Reference(_) | Type::Tuple(_) | Type::Slice(_) | Type::Array(_) => true,
        Type::Path(p) if p.qself.is_none() => {
            let first = p.path.segments.first().map(|s| s.ident.to_string());
            let last = p.path.segments.last().map(|s| s.ident.to_string());
            last.as_deref().is_some_and(|last| {
                ["String", "str", "Box", "Arc", "Rc", "Cow", "Report"].contains(&last)
                    || SCALARS.contains(&last)
            }) || (first.as_deref() == Some("anyhow") && last.as_deref() == Some("Error"))
        }
        _ => false,
    };
    if not_error {
        return Err(syn::Error::new_spanned(
            ty,
            format!(
                "the error of hook `{name}` becomes a `HookError`, which takes a type that implements `std::error::Error + Send + Sync + 'static`, and `{}` does not: return `hookwire::HookError` (`HookError::msg(..)`) or such an error type",
                show(ty)
            ),
        ));
    }
    Ok(())
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

/// `Next`, `Next<'_>`, `Next<'_, N>`, `Next<'_, impl Handler>`: returns
/// the handler parameter's name (`None` for `impl Handler`).
fn check_next(ty: &Type, name: &str, expected: &str) -> syn::Result<Option<syn::Ident>> {
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
    let mut implied = false;
    if let PathArguments::AngleBracketed(a) = &seg.arguments {
        for arg in &a.args {
            match arg {
                GenericArgument::Lifetime(l) if l.ident == "_" => {}
                GenericArgument::Lifetime(l) => {
                    return Err(syn::Error::new_spanned(
                        l,
                        format!(
                            "`next` of around hook `{name}` borrows the rest of the chain only for the call, so its lifetime cannot be `{}`: write `Next<'_, N>`",
                            show(l)
                        ),
                    ));
                }
                GenericArgument::Type(t) if handler.is_none() && !implied => match plain(t) {
                    Type::ImplTrait(i) => {
                        check_handler_bounds(i.bounds.iter(), t, name)?;
                        implied = true;
                    }
                    _ => match last_ident(t) {
                        Some(s) if s.arguments.is_empty() => handler = Some(s.ident.clone()),
                        _ => return Err(wrong(ty)),
                    },
                },
                _ => return Err(wrong(ty)),
            }
        }
    }
    let has_lifetime = matches!(&seg.arguments, PathArguments::AngleBracketed(a)
        if a.args.iter().any(|a| matches!(a, GenericArgument::Lifetime(_))));
    if (implied || handler.is_some()) && !has_lifetime {
        return Err(syn::Error::new_spanned(
            ty,
            format!(
                "`next` of around hook `{name}` must name its lifetime, as an `async fn` parameter: write `Next<'_, {}>`",
                if implied {
                    "impl Handler".to_owned()
                } else {
                    handler
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                }
            ),
        ));
    }
    if implied {
        return Ok(None);
    }
    Ok(Some(handler.unwrap_or_else(|| {
        syn::Ident::new("__HookwireNext", Span::call_site())
    })))
}

/// The bounds of the handler type: exactly `Handler` (the generated code
/// passes a type that is only known to be a `Handler`).
fn check_handler_bounds<'a>(
    bounds: impl Iterator<Item = &'a syn::TypeParamBound>,
    at: &dyn ToTokens,
    name: &str,
) -> syn::Result<usize> {
    let mut handlers = 0;
    for bound in bounds {
        match bound {
            syn::TypeParamBound::Trait(t)
                if t.lifetimes.is_none()
                    && t.maybe.is_none()
                    && t.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "Handler" && s.arguments.is_empty()) =>
            {
                handlers += 1;
            }
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    format!(
                        "the handler of around hook `{name}` can only be bound by `Handler` (the rest of the chain is known to be nothing more), found `{}`: write `N: Handler`",
                        show(other)
                    ),
                ));
            }
        }
    }
    if handlers == 0 {
        return Err(syn::Error::new_spanned(
            at,
            format!(
                "the handler of around hook `{name}` must be bound by `Handler`: write `N: Handler`"
            ),
        ));
    }
    Ok(handlers)
}

fn check_generics(
    sig: &Signature,
    handler: Option<&syn::Ident>,
    name: &str,
    expected: &str,
) -> syn::Result<()> {
    let mut bounds: Vec<&syn::TypeParamBound> = Vec::new();
    let mut declared = None;
    for param in &sig.generics.params {
        match (param, handler) {
            (syn::GenericParam::Type(t), Some(h))
                if t.ident == *h && t.default.is_none() && t.attrs.is_empty() =>
            {
                bounds.extend(&t.bounds);
                declared = Some(t);
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    param,
                    format!(
                        "hook `{name}` cannot have generic parameters other than the handler type of `Next`: expected `{expected}`"
                    ),
                ));
            }
        }
    }
    if let Some(w) = &sig.generics.where_clause {
        for predicate in &w.predicates {
            match (predicate, handler) {
                (syn::WherePredicate::Type(p), Some(h))
                    if p.lifetimes.is_none()
                        && declared.is_some()
                        && last_ident(&p.bounded_ty)
                            .is_some_and(|s| s.ident == *h && s.arguments.is_empty())
                        && matches!(plain(&p.bounded_ty), Type::Path(tp) if tp.path.segments.len() == 1) =>
                {
                    bounds.extend(&p.bounds);
                }
                _ => {
                    return Err(syn::Error::new_spanned(
                        predicate,
                        format!(
                            "hook `{name}` can only bound the handler type of `Next` in its `where` clause (`where N: Handler`): expected `{expected}`"
                        ),
                    ));
                }
            }
        }
    }
    if let Some(t) = declared
        && check_handler_bounds(bounds.into_iter(), t, name)? > 1
    {
        return Err(syn::Error::new_spanned(
            t,
            format!(
                "the handler of around hook `{name}` is bound by `Handler` twice: write it once"
            ),
        ));
    }
    Ok(())
}
