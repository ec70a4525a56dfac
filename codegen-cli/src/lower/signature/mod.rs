//! What the runtime accepts: the signature rules for tool functions and for
//! each kind of hook, checked on `syn` syntax trees.
//!
//! Both front ends call these checks: the `#[tool]`/`#[hook]` macros at
//! expansion time and `cardgen` when it loads a card, so the two can never
//! disagree about what a valid hook is. Every error is a [`syn::Error`]
//! spanned on the offending token, whose first line says what is wrong and
//! the expected signature in one sentence.

mod default_value;
mod hook;
mod tool;
mod types;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, PatType, PathArguments, ReturnType, Signature, Type};

/// The kinds of hook a function can be, told apart by its signature (the
/// shared vocabulary's hook kinds).
pub use crate::spec::HookKind;
pub(crate) use hook::check_hook;
pub use tool::{TOOL_EXPECTED, check_tool};
pub(crate) use tool::{
    check_ascii_ident, check_fn_attrs, doc_line, is_default_attr, join_docs, tool_params,
};
use types::*;
pub(crate) use types::{SCALARS, args_of_inner, dep_inner, option_inner, show};

/// The signature the runtime expects for a hook of kind `kind` named
/// `name`, as one line of Rust.
pub fn expected_signature(kind: HookKind, name: &str) -> String {
    match kind {
        HookKind::Around => {
            format!("async fn {name}(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome")
        }
        HookKind::Pre => {
            format!("async fn {name}(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision")
        }
        HookKind::Post => format!("async fn {name}(cx: &mut ToolContext, outcome: &mut Outcome)"),
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
    /// For around hooks: the name of the handler type parameter of `Next`
    /// (`None` for `Next<'_, impl Handler>`, and for pre and post hooks).
    pub handler_param: Option<syn::Ident>,
    /// For a typed pre hook: the tool's argument type it takes, as written.
    pub typed: Option<TypedArgs>,
}

impl HookSig {
    /// Whether the hook may rewrite the call's arguments (`Hook::REWRITES`):
    /// an around hook and a pre hook taking them `&mut` may; a typed pre
    /// hook taking `&ArgsOf<tool>` and a post hook do not.
    pub(crate) fn rewrites(&self) -> bool {
        match self.kind {
            HookKind::Around => true,
            HookKind::Pre => self.typed.as_ref().is_none_or(|t| t.mutable),
            HookKind::Post => false,
        }
    }
}

/// The second parameter of a typed pre hook: a tool's arguments as their
/// Rust type (`&mut ArgsOf<refund>` to rewrite, `&ArgsOf<refund>` to read).
#[derive(Debug, Clone)]
pub(crate) struct TypedArgs {
    /// The argument type, as written.
    pub ty: Type,
    /// Whether the hook may rewrite them (`&mut`).
    pub mutable: bool,
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
        /// `#[default(expr)]`: the value when the model leaves the
        /// argument out (the argument is then optional).
        default: Option<Box<syn::Expr>>,
    },
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

/// An error on the first parameter behind `#[cfg(..)]` or `#[cfg_attr(..)]`
/// of `sig`, a function the generated code calls (`what` says which): the
/// generated call passes every parameter, so one that may vanish breaks it.
pub(crate) fn reject_cfg_params(sig: &Signature, what: &str) -> syn::Result<()> {
    let attr = sig.inputs.iter().find_map(|arg| {
        let attrs = match arg {
            FnArg::Typed(t) => &t.attrs,
            FnArg::Receiver(r) => &r.attrs,
        };
        attrs
            .iter()
            .find(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
    });
    match attr {
        Some(attr) => Err(syn::Error::new_spanned(
            attr,
            format!(
                "a parameter of {what} `{}` cannot be behind `#[cfg(..)]`: the generated code calls `{}` with every parameter; remove the attribute",
                sig.ident, sig.ident
            ),
        )),
        None => Ok(()),
    }
}

fn reject_modifiers(
    sig: &Signature,
    what: &str,
    expected: &str,
    allow_const: bool,
) -> syn::Result<()> {
    if let Some(c) = sig.constness.as_ref().filter(|_| !allow_const) {
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

#[cfg(test)]
mod tests;
