//! The signature rules of the functions a card references beyond the
//! shared ones: what a tool may return, a child's `output` / `on_error`,
//! a step rule's `available` / `instruction`, and a tool's parameters as
//! written against the resolved ones.

use syn::{GenericArgument, PathArguments, ReturnType, Type};

use super::resolve::single_or_last;

/// What a tool may return, by name: what `IntoOutcome` is implemented for.
const RETURNS: &[&str] = &["String", "ToolResult", "Outcome", "Json"];

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
    // The type a parameter names (by its last segment; a local type of the
    // same name is the resolver's to refuse).
    let names = |ty: &Type, want: &str| match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => single_or_last(&s.elem).is_some_and(|n| n == want),
            elem => single_or_last(elem).is_some_and(|n| n == want),
        },
        ty => single_or_last(ty).is_some_and(|n| n == want),
    };
    if output {
        if !is_ref(params[0], false) || !names(params[0], "RunOutput") {
            return Err(wrong(
                params[0],
                "borrows the run: its first parameter is `&RunOutput`",
            ));
        }
        if !is_ref(params[1], true) || !names(params[1], "Message") {
            return Err(wrong(
                params[1],
                "borrows the history: its second parameter is `&[Message]`",
            ));
        }
    } else if matches!(params[0], Type::Reference(_)) {
        return Err(wrong(params[0], "takes the error by value"));
    } else if !names(params[0], "ToolError") {
        return Err(wrong(
            params[0],
            &format!(
                "takes `{}`, but the generated code passes the call's `ToolError`",
                crate::lower::show_type(params[0])
            ),
        ));
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
    let expected = format!("fn(step: &hookwire::view::StepView) -> {ret}");
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
    // What the generated call `f(..)` cannot call as written.
    if let syn::Safety::Unsafe(u) = &sig.safety {
        return Err(wrong(
            u,
            "cannot be `unsafe` (the generated code calls it as it is)",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(wrong(
            abi,
            "cannot have an `extern` ABI (the generated code calls it as a Rust function)",
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(wrong(v, "cannot be variadic"));
    }
    crate::lower::reject_cfg_params(sig, "the function")?;
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
                RETURNS.contains(&name.as_str())
                    || crate::lower::SCALARS.contains(&name.as_str())
                    || implemented(&name)
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
            ("fn f(e: hookwire::ToolError) -> String {}", false),
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
            (
                "fn f(e: String) -> String {}",
                false,
                "on_error mapping `f` takes `String`, but the generated code passes",
            ),
            (
                "unsafe fn f(e: ToolError) -> String {}",
                false,
                "on_error mapping `f` cannot be `unsafe`",
            ),
            (
                "extern \"C\" fn f(e: ToolError) -> String {}",
                false,
                "on_error mapping `f` cannot have an `extern` ABI",
            ),
            (
                "fn f(out: &RunOutput, h: &[String]) -> String {}",
                true,
                "output extractor `f` borrows the history",
            ),
            (
                "fn f(out: &String, h: &[Message]) -> String {}",
                true,
                "output extractor `f` borrows the run",
            ),
        ];
        for (text, output, expected) in bad {
            let e = check(text, output);
            assert!(e.starts_with(expected), "{text}: {e}");
        }
    }
}
