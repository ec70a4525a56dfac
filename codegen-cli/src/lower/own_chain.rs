//! A tool's own chain (`#[tool(tool_hooks = [..], needs_approval, on_error)]`):
//! its `ToolDecl` impl, and the summary `cardgen explain` shows.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::signature::HookKind;
use super::tool::{Dependency, tool_attribute};
use super::{NeedsApproval, ToolOptions};
use crate::spec::{Approval, HookLevel, PolicyHook, policy_hook};

/// For a tool with its own hooks, approval rule or error mapping: the
/// hidden tool type and the `ToolDecl` impl whose handler is, outermost
/// first, the tool's own hooks, the approval gate, the error mapping and the
/// tool. Each user path is checked on its own token: a hook through its
/// slot (one error, there, and none where the tool is used), the predicate
/// and the mapping through the calls that use them.
pub(crate) fn own_chain(
    opts: &ToolOptions,
    ty_ident: &syn::Ident,
    name: &str,
    deps: &[Dependency],
    vis: &syn::Visibility,
) -> syn::Result<TokenStream> {
    if !opts.has_own_chain() {
        return Ok(TokenStream::new());
    }
    let krate = &opts.crate_path;
    let mut items = Vec::new();
    let mut probes = Vec::new();
    let mut own_facts = Vec::new();
    // Innermost first: the tool, then the error mapping, then the gate, then
    // the hooks from the last declared to the first.
    let idents: Vec<&syn::Ident> = deps.iter().map(|(ident, _, _)| ident).collect();
    // The tool inside, made of the outer type's dependencies (moved when
    // the handler is built, cloned to describe it).
    let (tool_value, tool_copy) = if deps.is_empty() {
        (quote!(__HookwireTool), quote!(__HookwireTool))
    } else {
        (
            quote!(__HookwireTool { #(#idents: self.#idents,)* }),
            quote!(__HookwireTool { #(#idents: ::core::clone::Clone::clone(&self.#idents),)* }),
        )
    };
    let mut chain_ty = quote!(#krate::ToolHandler<__HookwireTool>);
    let mut chain_init = quote!(#krate::ToolHandler(#tool_value));
    let mut depth = 0usize;
    // The `Boxed` layers among them.
    let mut boxes = 0usize;
    if let Some(path) = &opts.on_error {
        let call = quote_spanned! {path.span()=>
            #krate::declare::map_error(#path, error, tool)
        };
        items.push(quote! {
            /// The tool's `on_error` mapping.
            #[derive(Debug, Clone, Copy, Default)]
            pub struct __HookwireOnError;

            impl #krate::declare::OnError for __HookwireOnError {
                fn on_error(&self, error: #krate::ToolError, tool: &str) -> #krate::Outcome {
                    #call
                }
            }
        });
        chain_ty = quote!(#krate::declare::MapError<__HookwireOnError, #chain_ty>);
        chain_init = quote!(#krate::declare::MapError::new(__HookwireOnError, #chain_init));
        depth += 1;
    }
    match &opts.needs_approval {
        None => {}
        Some(NeedsApproval::Always(_)) => {
            chain_ty = quote!(#krate::Hooked<#krate::__private::NeedsApproval<bool>, #chain_ty>);
            chain_init = quote!(#krate::Hooked::new(#krate::__private::NeedsApproval::new(true), #chain_init));
            depth += 1;
        }
        Some(NeedsApproval::When(path)) => {
            let call = quote_spanned! {path.span()=>
                #krate::declare::needs_approval_for::<__HookwireTool, _>(#path, args)
            };
            items.push(quote! {
                /// The tool's `needs_approval` rule.
                #[derive(Debug, Clone, Copy, Default)]
                pub struct __HookwireApproval;

                impl #krate::matcher::Predicate<#krate::serde_json::Value> for __HookwireApproval {
                    fn test(&self, args: &#krate::serde_json::Value) -> bool {
                        #call
                    }
                }
            });
            chain_ty = quote!(
                #krate::Hooked<#krate::__private::NeedsApproval<__HookwireApproval>, #chain_ty>
            );
            chain_init = quote!(#krate::Hooked::new(
                #krate::__private::NeedsApproval::new(__HookwireApproval),
                #chain_init
            ));
            depth += 1;
        }
    }
    for (j, hook) in opts.hooks.iter().enumerate().rev() {
        if depth - boxes == crate::emit::OWN_SEGMENT * (boxes + 1) {
            // See `Boxed`: no segment of the chain nests more than
            // `OWN_SEGMENT` layers.
            crate::emit::boxed(krate, &mut chain_ty, &mut chain_init);
            depth += 1;
            boxes += 1;
        }
        // Each hook through its slot, whose kind impl (spanned on the path)
        // is the one check that it is a hook: the `ToolDecl` impl itself
        // has no bound, so an agent that lists the tool adds no error.
        let prefix = format!("__HookwireHook{j}");
        let lowered = crate::emit::lower_hook(krate, hook, None, &prefix, Some(vis))?;
        items.push(lowered.items.clone());
        own_facts.push(lowered.facts.clone());
        probes.push(crate::emit::typed_probe(
            krate,
            &lowered,
            &quote!(<__HookwireTool as #krate::Tool>::Args),
        ));
        let (hty, hinit) = (&lowered.ty, &lowered.init);
        chain_ty = quote!(#krate::Hooked<#hty, #chain_ty>);
        chain_init = quote!(#krate::Hooked::new(#hinit, #chain_init));
        depth += 1;
    }
    items.push(crate::emit::typed_probes(krate, &probes));
    let inners = (0..depth).map(|_| quote!(.inner()));
    let _ = name;
    // Lowered outermost last: back in the list's order.
    own_facts.reverse();
    let (own_hooks, approval) = own_policy_tokens(opts, &own_facts);
    Ok(quote! {
        #(#items)*

        // Nested by design: the tool's own chain.
        #[allow(clippy::type_complexity)]
        impl #krate::declare::ToolDecl for #ty_ident {
            type Tool = __HookwireTool;
            type Handler = #chain_ty;

            const OWN_HOOKS: &'static [#krate::__private::review::PolicyHook] = #own_hooks;
            const APPROVAL: #krate::__private::review::Approval = #approval;

            fn into_handler(self) -> Self::Handler {
                #chain_init
            }

            fn tool(handler: &Self::Handler) -> &__HookwireTool {
                &handler #(#inners)* .0
            }

            fn describe(&self) -> #krate::ToolDefinition {
                #krate::Tool::definition(&#tool_copy)
            }
        }
    })
}

/// The tool's own chain as its policy shows it: its `ToolDecl::OWN_HOOKS`
/// (each hook's phase and rewrites read from its type in the chain,
/// `facts`, in the list's order) and `ToolDecl::APPROVAL`.
fn own_policy_tokens(
    opts: &ToolOptions,
    facts: &[crate::emit::HookFacts],
) -> (TokenStream, TokenStream) {
    let krate = &opts.crate_path;
    let hooks = opts.hooks.iter().zip(facts).map(|(h, facts)| {
        crate::emit::hook_tokens(
            krate,
            &policy_hook(h, HookLevel::Own),
            None,
            None,
            Some(facts),
        )
    });
    let approval = crate::emit::approval_tokens(
        krate,
        &match &opts.needs_approval {
            None => Approval::None,
            Some(NeedsApproval::Always(_)) => Approval::Always,
            Some(NeedsApproval::When(path)) => Approval::When(text(path).into()),
        },
    );
    (quote!(&[#(#hooks),*]), approval)
}

/// The tool's type and its `FromDeps` impl. Without dependencies, a unit
/// struct built from any agent's dependencies; with them, a struct with one
/// field per dependency, built from the dependencies `D` of any agent that
/// provides them (`T: FromRef<D>`, spanned on the parameter, so a missing
/// one is reported there and names the type).
pub(crate) fn declare_tool_type(
    krate: &syn::Path,
    vis: &syn::Visibility,
    ty_ident: &syn::Ident,
    deps: &[Dependency],
) -> (TokenStream, TokenStream) {
    if deps.is_empty() {
        return (
            quote! {
                #[allow(non_camel_case_types)]
                #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
                #vis struct #ty_ident {}
            },
            quote! {
                impl<__D> #krate::FromDeps<__D> for #ty_ident {
                    #[inline]
                    fn from_deps(_: &__D) -> Self {
                        #ty_ident {}
                    }
                }
            },
        );
    }
    let fields = deps.iter().map(|(ident, ty, _)| quote!(#ident: #ty,));
    let bounds = deps
        .iter()
        .map(|(_, ty, span)| quote_spanned!(*span=> #ty: #krate::deps::FromRef<__D>));
    let inits = deps
        .iter()
        .map(|(ident, ty, _)| quote!(#ident: <#ty as #krate::deps::FromRef<__D>>::from_ref(deps),));
    (
        quote! {
            #[allow(non_camel_case_types)]
            #vis struct #ty_ident {
                #(#fields)*
            }

            impl ::core::fmt::Debug for #ty_ident {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(::core::stringify!(#ty_ident)).finish_non_exhaustive()
                }
            }
        },
        quote! {
            impl<__D> #krate::FromDeps<__D> for #ty_ident
            where
                #(#bounds,)*
            {
                fn from_deps(deps: &__D) -> Self {
                    Self { #(#inits)* }
                }
            }
        },
    )
}

/// What a function's own `#[tool(..)]` attribute puts between the agent's
/// hooks and the tool, in the order it runs: each of its `hooks` (with
/// their options as written), then `needs_approval`, then `on_error`. Empty
/// for a function without the attribute or without those keys. For
/// `cardgen explain`; the macro itself checks the attribute.
pub fn own_chain_summary(item: &ItemFn) -> Vec<String> {
    let (mut hooks, mut approval, mut on_error) = (Vec::new(), None, None);
    for meta in &own_metas(item) {
        match meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("tool_hooks") => {
                if let syn::Expr::Array(array) = &nv.value {
                    hooks.extend(array.elems.iter().map(|e| text(e)));
                }
            }
            syn::Meta::Path(p) if p.is_ident("needs_approval") => {
                approval = Some("needs_approval".to_owned());
            }
            syn::Meta::NameValue(nv) if nv.path.is_ident("needs_approval") => {
                approval = Some(format!("needs_approval = {}", text(&nv.value)));
            }
            syn::Meta::NameValue(nv) if nv.path.is_ident("on_error") => {
                on_error = Some(format!("on_error = {}", text(&nv.value)));
            }
            _ => {}
        }
    }
    hooks.into_iter().chain(approval).chain(on_error).collect()
}

/// The keys of a function's own `#[tool(..)]` attribute (none without it).
fn own_metas(item: &ItemFn) -> Vec<syn::Meta> {
    let Some(syn::Meta::List(list)) = tool_attribute(item).map(|a| &a.meta) else {
        return Vec::new();
    };
    list.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        .map(|metas| metas.into_iter().collect())
        .unwrap_or_default()
}

/// Tokens as the attribute reads (`a::b(x = 1)`, not `a :: b (x = 1)`).
fn text(t: &dyn quote::ToTokens) -> String {
    t.to_token_stream()
        .to_string()
        .replace(" (", "(")
        .replace(" :: ", "::")
}

/// The policy's view of a tool's own chain (its `tool_hooks` with their
/// `on_failure` and `timeout_ms`, and its `needs_approval`), read from its
/// `#[tool(..)]` as the macro reads it: what `own_policy_tokens` puts in
/// the tool's `ToolDecl`, for `cardgen explain --json`. A value the macro
/// would refuse is left at its default (the macro reports it).
///
/// `signature` gives what the signature rules say of the hook a path
/// names, when the caller can read it (a card reads the functions of the
/// tool's file): its phase and whether it may rewrite the arguments
/// (`None`: an around hook, which may).
pub fn own_policy(
    item: &ItemFn,
    signature: &dyn Fn(&syn::Path) -> Option<(HookKind, bool)>,
) -> (Vec<PolicyHook>, Approval) {
    let (mut hooks, mut approval) = (Vec::new(), Approval::None);
    for meta in &own_metas(item) {
        match meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("tool_hooks") => {
                if let syn::Expr::Array(array) = &nv.value {
                    hooks.extend(array.elems.iter().filter_map(|e| own_hook(e, signature)));
                }
            }
            syn::Meta::Path(p) if p.is_ident("needs_approval") => approval = Approval::Always,
            syn::Meta::NameValue(nv) if nv.path.is_ident("needs_approval") => {
                approval = match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Bool(b),
                        ..
                    }) if !b.value => Approval::None,
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Bool(_),
                        ..
                    }) => Approval::Always,
                    value => Approval::When(text(value).into()),
                };
            }
            _ => {}
        }
    }
    (hooks, approval)
}

/// One `tool_hooks` entry: `path` or `path(on_failure = "..", timeout_ms = N)`.
fn own_hook(
    entry: &syn::Expr,
    signature: &dyn Fn(&syn::Path) -> Option<(HookKind, bool)>,
) -> Option<PolicyHook> {
    let (path, args): (&syn::Path, Vec<&syn::Expr>) = match entry {
        syn::Expr::Path(p) => (&p.path, Vec::new()),
        syn::Expr::Call(call) => match &*call.func {
            syn::Expr::Path(p) => (&p.path, call.args.iter().collect()),
            _ => return None,
        },
        _ => return None,
    };
    let mut hook = crate::spec::HookRef::new(text(path));
    if let Some((phase, rewrites)) = signature(path) {
        hook.rewrites = Some(rewrites);
        hook.phase = Some(phase);
    }
    for arg in args {
        let syn::Expr::Assign(assign) = arg else {
            continue;
        };
        let syn::Expr::Lit(syn::ExprLit { lit, .. }) = &*assign.right else {
            continue;
        };
        match (text(&*assign.left).as_str(), lit) {
            ("on_failure", syn::Lit::Str(s)) => {
                if let Ok(p) = s.value().parse() {
                    hook.policy = p;
                }
            }
            ("timeout_ms", syn::Lit::Int(i)) => hook.timeout_ms = i.base10_parse().ok(),
            _ => {}
        }
    }
    Some(policy_hook(&hook, HookLevel::Own))
}
