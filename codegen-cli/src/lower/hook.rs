//! A function to a zero-sized hook type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{FnArg, GenericArgument, ItemFn, PathArguments, Type};

use super::signature::{Fallible, HookKind, HookSig, check_fn_attrs, check_hook};
use super::{HookOptions, unraw};
use crate::spec::{FailurePolicy, Matcher};

/// Lowers a hook function to a zero-sized struct of the same name (or
/// `opts.type_ident`) that implements `Hook`, so that `tool_hooks = [name]`
/// and `hookwire::chain!(name {}, ... => tool)` accept it. The struct has
/// braces, so it is not in the value namespace: a binding called `name` in
/// the same module stays a binding (a unit struct would be matched there).
///
/// The function's signature decides its kind (see
/// [`classify_hook`](super::classify_hook)); pre hooks also implement
/// `PreHook` and post hooks `PostHook`, and both reach `Hook` through
/// `Pre`/`Post`. With `matcher`, the hook skips the tools it does not match
/// (evaluated at run time; the pattern is checked here). With `on_failure =
/// open` or a timeout, it runs inside `Guarded`.
pub fn hook(item: &ItemFn, opts: &HookOptions) -> syn::Result<TokenStream> {
    super::signature::check_ascii_ident(&item.sig.ident, "hook")?;
    check_fn_attrs(&item.attrs, &unraw(&item.sig.ident), "hook")?;
    if let (Some(path), Some(_)) = (&opts.fn_path, hook_attribute(item)) {
        // The macro checks the same signature where the function is: a
        // card that `check` accepts then compiles.
        check_hook(&item.sig)?;
        return Ok(declared_elsewhere(item, opts, path));
    }
    let krate = &opts.crate_path;
    let checked = check_hook(&item.sig)?;
    let fn_ident = &item.sig.ident;
    let ty_ident = opts.type_ident.clone().unwrap_or_else(|| fn_ident.clone());
    let name = opts.name.clone().unwrap_or_else(|| unraw(fn_ident));
    let matcher = checked_matcher(opts, &name)?;
    let (callee, inner_fn) = body_at(item, opts, &checked, &ty_ident, &name)?;
    let parts = HookParts {
        krate,
        checked: &checked,
        ty_ident: &ty_ident,
        callee: &callee,
        name: &name,
    };
    let kind = parts.kind_impl();
    let guarded = opts.on_failure != FailurePolicy::FailClosed || opts.timeout_ms.is_some();
    let run = parts.run(opts, guarded, &kind);
    // Only a guarded around hook needs `__HookwireAround` (a type for
    // `Guarded` to wrap); pre and post hooks always need their impl.
    let kind_impl = if checked.kind == HookKind::Around && !guarded {
        quote!()
    } else {
        kind.item
    };
    let around = around_fn(krate, matcher, &run);
    let typed = typed_items(krate, &checked, &ty_ident, opts);
    let rewrites = checked.rewrites();
    let phase = match checked.kind {
        HookKind::Around => quote!(Around),
        HookKind::Pre => quote!(Pre),
        HookKind::Post => quote!(Post),
    };

    let docs: Vec<&syn::Attribute> = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let vis = &item.vis;
    Ok(quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        #vis struct #ty_ident {}

        #inner_fn

        const _: () = {
            #kind_impl
            #typed

            impl #krate::Hook for #ty_ident {
                const REWRITES: bool = #rewrites;
                const PHASE: #krate::__private::review::HookKind =
                    #krate::__private::review::HookKind::#phase;

                #around

                fn name(&self) -> &'static str {
                    #name
                }
            }

            // A hook has no dependencies of its own: agents build it with
            // `Default`. It is `FromDeps` too, so that a hook listed where a
            // tool or an agent belongs is one error (that), not two.
            impl<__D> #krate::FromDeps<__D> for #ty_ident {
                #[inline]
                fn from_deps(_: &__D) -> Self {
                    #ty_ident {}
                }
            }
        };
    })
}

/// What says a typed pre hook's argument type to the checks that it runs
/// only on tools with those arguments (`hookwire::__private::check::
/// HookArgs`): only where the type is written (`#[hook]` on the function);
/// a card's hook that stays where it is cannot name it from the card's
/// module, and `cardgen` checks it when it loads the cards.
fn typed_items(
    krate: &syn::Path,
    checked: &HookSig,
    ty_ident: &syn::Ident,
    opts: &HookOptions,
) -> TokenStream {
    match (&checked.typed, &opts.fn_path) {
        (Some(typed), None) => {
            let args_ty = &typed.ty;
            let check = quote!(#krate::__private::check);
            quote! {
                impl #check::TypedHook for #ty_ident {}
                impl #check::HookArgs<#args_ty> for #ty_ident {}
            }
        }
        _ => quote!(),
    }
}

/// Checks the options of the hook `name`: a timeout must be positive, a
/// `match` pattern must parse. Gives the pattern.
fn checked_matcher(opts: &HookOptions, name: &str) -> syn::Result<Option<String>> {
    if let Some((0, span)) = opts.timeout_ms {
        return Err(syn::Error::new(
            span,
            format!(
                "`timeout_ms` of hook `{name}` must be greater than zero: expected `timeout_ms = 500` (milliseconds), or no timeout at all"
            ),
        ));
    }
    match &opts.matcher {
        Some(lit) => match Matcher::parse(&lit.value()) {
            Ok(_) => Ok(Some(lit.value())),
            Err(e) => Err(syn::Error::new(
                lit.span(),
                format!(
                    "invalid `match` pattern for hook `{name}`: {e}; expected a tool name, `a|b`, a `*` glob, `/regex/`, `source:mcp` or `meta:key=value`"
                ),
            )),
        },
        None => Ok(None),
    }
}

/// Where the body lives: the function a card references (the callee's
/// path), or the body itself, moved into `impl Hook { fn __hookwire_fn }`
/// (the callee and that impl).
fn body_at(
    item: &ItemFn,
    opts: &HookOptions,
    checked: &HookSig,
    ty_ident: &syn::Ident,
    name: &str,
) -> syn::Result<(TokenStream, Option<TokenStream>)> {
    let krate = &opts.crate_path;
    Ok(match &opts.fn_path {
        Some(path) => {
            if let (HookKind::Around, Some(handler)) = (checked.kind, &checked.handler_param) {
                require_declared_handler(item, handler, name)?;
            }
            (quote!(#path), None)
        }
        None => {
            let mut inner = item.clone();
            inner.attrs.retain(|a| !a.path().is_ident("doc"));
            inner.vis = syn::Visibility::Inherited;
            inner.sig.ident = format_ident!("__hookwire_fn");
            if let (HookKind::Around, Some(handler)) = (checked.kind, &checked.handler_param) {
                add_handler_param(&mut inner, handler, krate);
            }
            (
                quote!(#ty_ident::__hookwire_fn),
                Some(quote! {
                    impl #ty_ident {
                        #inner
                    }
                }),
            )
        }
    })
}

/// `Hook::around` as a plain `fn` that returns a future it does not wrap.
fn plain_around_sig(krate: &syn::Path) -> TokenStream {
    quote! {
        #[inline]
        fn around<__HookwireNext: #krate::Handler>(
            &self,
            cx: &mut #krate::ToolContext,
            args: #krate::ToolArgs,
            next: #krate::Next<'_, __HookwireNext>,
        ) -> impl ::core::future::Future<Output = #krate::Outcome> + ::core::marker::Send
    }
}

/// What the hook's `Hook` impl is made of.
struct HookParts<'a> {
    krate: &'a syn::Path,
    checked: &'a HookSig,
    ty_ident: &'a syn::Ident,
    /// The function the hook calls.
    callee: &'a TokenStream,
    name: &'a str,
}

/// The impl of the hook's kind, and the value that runs it.
struct KindImpl {
    /// `__HookwireAround`'s `Hook` impl, or the `PreHook` / `PostHook` impl.
    item: TokenStream,
    /// The type of the value that runs the hook (`Pre<Hook>`, ..).
    wrapped_ty: TokenStream,
    /// That value.
    wrapped: TokenStream,
}

impl HookParts<'_> {
    /// The impl of the hook's kind.
    fn kind_impl(&self) -> KindImpl {
        let Self {
            krate,
            ty_ident,
            callee,
            name,
            ..
        } = *self;
        let into_hook_error = quote!(::core::convert::Into::<#krate::HookError>::into);
        let rewrites = self.checked.rewrites();
        match self.checked.kind {
            // `__HookwireAround` is only needed as the type `Guarded` wraps.
            // It returns the function's future itself: no `async` level of its
            // own (see the note on the `Hook` impl below).
            HookKind::Around => {
                let plain_around_sig = plain_around_sig(krate);
                KindImpl {
                    item: quote! {
                        #[derive(Debug, Clone, Copy, Default)]
                        struct __HookwireAround;

                        impl #krate::Hook for __HookwireAround {
                            #plain_around_sig {
                                #callee(cx, args, next)
                            }

                            fn name(&self) -> &'static str {
                                #name
                            }
                        }
                    },
                    wrapped_ty: quote!(__HookwireAround),
                    wrapped: quote!(__HookwireAround),
                }
            }
            HookKind::Pre => {
                // A typed pre hook runs on the arguments as the tool's type,
                // parsed once for the chain (`ToolArgs::typed`): the type is
                // the one the function takes (inferred, so the code compiles
                // where the type's name does not resolve, as in a card's
                // module).
                let (take, args) = match &self.checked.typed {
                    None => (quote!(), quote!(args)),
                    Some(typed) => {
                        let access = if typed.mutable {
                            quote!(typed_mut)
                        } else {
                            quote!(typed)
                        };
                        (
                            quote! {
                                let __hookwire_args = args
                                    .#access(#krate::ToolContext::tool(cx))
                                    .map_err(#into_hook_error)?;
                            },
                            quote!(__hookwire_args),
                        )
                    }
                };
                let body = match self.checked.fallible {
                    Fallible::No => {
                        quote!(#take ::core::result::Result::Ok(#callee(cx, #args).await))
                    }
                    Fallible::Yes => {
                        quote!(#take #callee(cx, #args).await.map_err(#into_hook_error))
                    }
                };
                KindImpl {
                    item: quote! {
                        impl #krate::PreHook for #ty_ident {
                            const REWRITES: bool = #rewrites;

                            async fn before(
                                &self,
                                cx: &mut #krate::ToolContext,
                                args: &mut #krate::ToolArgs,
                            ) -> ::core::result::Result<#krate::Decision, #krate::HookError> {
                                #body
                            }

                            fn name(&self) -> &'static str {
                                #name
                            }
                        }
                    },
                    wrapped_ty: quote!(#krate::Pre<#ty_ident>),
                    wrapped: quote!(#krate::Pre(#ty_ident {})),
                }
            }
            HookKind::Post => {
                let body = match self.checked.fallible {
                    Fallible::No => quote! {
                        #callee(cx, outcome).await;
                        ::core::result::Result::Ok(())
                    },
                    Fallible::Yes => quote!(#callee(cx, outcome).await.map_err(#into_hook_error)),
                };
                KindImpl {
                    item: quote! {
                        impl #krate::PostHook for #ty_ident {
                            async fn after(
                                &self,
                                cx: &mut #krate::ToolContext,
                                outcome: &mut #krate::Outcome,
                            ) -> ::core::result::Result<(), #krate::HookError> {
                                #body
                            }

                            fn name(&self) -> &'static str {
                                #name
                            }
                        }
                    },
                    wrapped_ty: quote!(#krate::Post<#ty_ident>),
                    wrapped: quote!(#krate::Post(#ty_ident {})),
                }
            }
        }
    }

    /// The future the hook runs, as an expression: the function's own
    /// future for a plain around hook, otherwise the wrapper's (`Pre`,
    /// `Post`, `Guarded`), which lives in a `static` so the future may
    /// borrow it.
    fn run(&self, opts: &HookOptions, guarded: bool, kind: &KindImpl) -> TokenStream {
        let Self { krate, callee, .. } = *self;
        let KindImpl {
            wrapped_ty,
            wrapped,
            ..
        } = kind;
        if guarded {
            let policy = match opts.on_failure {
                FailurePolicy::FailOpen => quote!(#krate::FailurePolicy::FailOpen),
                FailurePolicy::FailClosed => quote!(#krate::FailurePolicy::FailClosed),
            };
            let timeout = match opts.timeout_ms {
                Some((ms, _)) => {
                    quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms)))
                }
                None => quote!(::core::option::Option::None),
            };
            quote! {{
                static GUARDED: #krate::Guarded<#wrapped_ty> =
                    #krate::Guarded::new(#wrapped, #policy, #timeout);
                #krate::Hook::around(&GUARDED, cx, args, next)
            }}
        } else if self.checked.kind == HookKind::Around {
            quote!(#callee(cx, args, next))
        } else {
            quote! {{
                static WRAPPED: #wrapped_ty = #wrapped;
                #krate::Hook::around(&WRAPPED, cx, args, next)
            }}
        }
    }
}

/// The hook's `around`, which runs `run`. Without a matcher it is a plain
/// `fn` returning that future: no `async` state machine of its own. Every
/// coroutine in a chain nests the next one, so an extra level per hook
/// costs at run time and, in a deep chain, pushes the future's type past
/// rustc's query depth limit (16 hooks must compile without
/// `#![recursion_limit]`).
fn around_fn(krate: &syn::Path, matcher: Option<String>, run: &TokenStream) -> TokenStream {
    match matcher {
        None => {
            let plain_around_sig = plain_around_sig(krate);
            quote!(#plain_around_sig { #run })
        }
        Some(pattern) => quote! {
            async fn around<__HookwireNext: #krate::Handler>(
                &self,
                cx: &mut #krate::ToolContext,
                args: #krate::ToolArgs,
                next: #krate::Next<'_, __HookwireNext>,
            ) -> #krate::Outcome {
                static MATCHER: ::std::sync::LazyLock<::core::option::Option<#krate::matcher::Matcher>> =
                    ::std::sync::LazyLock::new(|| #krate::matcher::Matcher::parse(#pattern).ok());
                let target = #krate::matcher::MatchTarget::new(cx.tool(), cx.source());
                if !MATCHER.as_ref().is_some_and(|m| m.matches(target)) {
                    return next.run(cx, args).await;
                }
                #run.await
            }
        },
    }
}

/// The function's own `#[hook]` / `#[hookwire::hook]` attribute, if any.
fn hook_attribute(item: &ItemFn) -> Option<&syn::Attribute> {
    item.attrs.iter().find(|a| {
        let segments = &a.path().segments;
        segments.last().is_some_and(|s| s.ident == "hook")
            && (segments.len() == 1 || segments.first().is_some_and(|s| s.ident == "hookwire"))
    })
}

/// A function a card references (`hooks.rs:audit`) that is already a hook
/// through its own `#[hook]` attribute (as the README writes hooks): the
/// macro made the type where the function is, so the card's type is an
/// alias of it (the macro checks the signature there).
fn declared_elsewhere(item: &ItemFn, opts: &HookOptions, path: &syn::Path) -> TokenStream {
    let ty_ident = opts
        .type_ident
        .clone()
        .unwrap_or_else(|| item.sig.ident.clone());
    let doc = format!(
        " The hook `{}`, declared with `#[hook]` where it is defined.",
        unraw(&item.sig.ident)
    );
    let vis = &item.vis;
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #vis type #ty_ident = #path;
    }
}

/// A function that stays where it is (cardgen) must compile on its own, so
/// its `next` must name a declared handler parameter.
fn require_declared_handler(item: &ItemFn, handler: &syn::Ident, name: &str) -> syn::Result<()> {
    let declared = item
        .sig
        .generics
        .params
        .iter()
        .any(|p| matches!(p, syn::GenericParam::Type(t) if t.ident == *handler));
    if declared {
        return Ok(());
    }
    let span_of_next = match item.sig.inputs.iter().nth(2) {
        Some(FnArg::Typed(t)) => quote::ToTokens::to_token_stream(&t.ty),
        _ => quote::ToTokens::to_token_stream(&item.sig.ident),
    };
    Err(syn::Error::new_spanned(
        span_of_next,
        format!(
            "around hook `{name}` must be generic over the rest of the chain when it is not marked `#[hook]`: expected `async fn {name}<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome`"
        ),
    ))
}

/// Makes the user's `next: Next` (or `Next<'_>`) generic over the handler:
/// `next: Next<'_, H>` with `H: Handler` declared on the function.
fn add_handler_param(inner: &mut ItemFn, handler: &syn::Ident, krate: &syn::Path) {
    let declared = inner
        .sig
        .generics
        .params
        .iter()
        .any(|p| matches!(p, syn::GenericParam::Type(t) if t.ident == *handler));
    if declared {
        return;
    }
    inner
        .sig
        .generics
        .params
        .push(syn::parse_quote!(#handler: #krate::Handler));
    if let Some(FnArg::Typed(t)) = inner.sig.inputs.iter_mut().nth(2) {
        rewrite_next(&mut t.ty, handler);
    }
}

fn rewrite_next(ty: &mut Type, handler: &syn::Ident) {
    let ty = match ty {
        Type::Group(g) => &mut *g.elem,
        Type::Paren(p) => &mut *p.elem,
        other => other,
    };
    let Type::Path(p) = ty else { return };
    let Some(seg) = p.path.segments.last_mut() else {
        return;
    };
    let has_type = matches!(&seg.arguments, PathArguments::AngleBracketed(a)
        if a.args.iter().any(|a| matches!(a, GenericArgument::Type(_))));
    if has_type {
        return;
    }
    seg.arguments = PathArguments::AngleBracketed(syn::parse_quote!(<'_, #handler>));
}
