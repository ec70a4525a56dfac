//! A function to a `Tool` impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, ReturnType};

use super::signature::{ToolParam, doc_line, join_docs, tool_params};
use super::{NeedsApproval, ToolOptions, path_string, unraw};

/// Whether `name` is a tool name every model API accepts.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Lowers a tool function to a zero-sized type of the same name (or
/// `opts.type_ident`) that implements `Tool`.
///
/// The parameters become the fields of a generated argument struct (serde +
/// schemars through `crate_path::__private`), doc comments on parameters
/// become field descriptions, `Option<T>` parameters are optional, and an
/// optional `&ToolContext` parameter receives the context. The return value
/// is converted with `IntoOutcome`. Type-level mistakes (a parameter that is
/// not `Deserialize + JsonSchema`, a return type that is not `IntoOutcome`)
/// are reported by the compiler spanned on the user's tokens.
pub fn tool(item: &ItemFn, opts: &ToolOptions) -> syn::Result<TokenStream> {
    if let (Some(path), Some(attr)) = (&opts.fn_path, tool_attribute(item)) {
        return declared_elsewhere(item, opts, path, attr);
    }
    let krate = &opts.crate_path;
    let sig = &item.sig;
    let params = tool_params(sig, opts.strict)?;
    let fn_ident = &sig.ident;
    let ty_ident = opts.type_ident.clone().unwrap_or_else(|| fn_ident.clone());

    let name = match &opts.name {
        Some(lit) => {
            let name = lit.value();
            if !valid_name(&name) {
                return Err(syn::Error::new(
                    lit.span(),
                    format!(
                        "invalid tool name `{name}`: a tool name is 1 to 64 ASCII letters, digits, `_` or `-`"
                    ),
                ));
            }
            name
        }
        None => unraw(fn_ident),
    };
    let doc_lines: Vec<String> = item.attrs.iter().filter_map(doc_line).collect();
    let description = match &opts.description {
        Some(lit) => lit.value(),
        None => join_docs(&doc_lines),
    };
    if description.is_empty() {
        return Err(syn::Error::new(
            fn_ident.span(),
            format!(
                "tool `{name}` has no description: add a doc comment (`/// What {name} does.`) or `description = \"...\"`, the model reads it to decide when to call the tool"
            ),
        ));
    }

    let serde_path = path_string(&syn::parse_quote!(#krate::__private::serde));
    let schemars_path = path_string(&syn::parse_quote!(#krate::__private::schemars));
    // Named after the tool's function, so that a type error reads like
    // `hookwire::ArgsOf<delete>`, the name users write for it.
    let args_ident = format_ident!("ArgsOf_{}", unraw(fn_ident));

    let mut fields = Vec::new();
    let mut checks = Vec::new();
    let mut idents = Vec::new();
    let mut call_args = Vec::new();
    let mut uses_cx = false;
    // Dependencies: fields of the tool type, built from the agent's
    // dependencies, and a clone of each passed to every call.
    let mut deps = Vec::new();
    for param in &params {
        match param {
            ToolParam::Context => {
                uses_cx = true;
                call_args.push(quote!(__hookwire_cx));
            }
            ToolParam::Dep { ident, ty, written } => {
                deps.push((ident.clone(), ty.clone(), written.span()));
                call_args.push(quote!(#krate::Dep(::core::clone::Clone::clone(&self.#ident))));
            }
            ToolParam::Arg { ident, ty, docs } => {
                let doc = join_docs(docs);
                let doc_attr = (!doc.is_empty()).then(|| quote!(#[doc = #doc]));
                // serde already treats a missing `Option` field as `None`, and
                // schemars leaves it out of `required`.
                fields.push(quote! { #doc_attr pub #ident: #ty, });
                checks.push(crate::emit::bound(
                    ty.span(),
                    quote!(for<'__hookwire> #ty: #krate::__private::check::ToolArg),
                ));
                idents.push(ident.clone());
                call_args.push(quote!(#ident));
            }
        }
    }
    let deny_unknown = opts.strict.then(|| quote!(#[serde(deny_unknown_fields)]));

    // Where the body lives.
    let is_async = sig.asyncness.is_some();
    let (callee, inner_fn) = match &opts.fn_path {
        Some(path) => (quote!(#path), None),
        None => {
            let mut inner = item.clone();
            inner.attrs.retain(|a| !a.path().is_ident("doc"));
            inner.vis = item.vis.clone();
            inner.sig.ident = format_ident!("run");
            for input in &mut inner.sig.inputs {
                if let FnArg::Typed(t) = input {
                    t.attrs.retain(|a| !a.path().is_ident("doc"));
                }
            }
            let doc = format!(
                "Runs the body of tool `{name}` directly, without any hook or argument parsing."
            );
            (
                quote!(#ty_ident::run),
                Some(quote! {
                    impl #ty_ident {
                        #[doc = #doc]
                        #[allow(clippy::too_many_arguments)]
                        #inner
                    }
                }),
            )
        }
    };
    let await_call = is_async.then(|| quote!(.await));
    let ret_span = match &sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => sig.ident.span(),
    };
    let convert = quote_spanned! {ret_span=>
        #krate::IntoOutcome::into_outcome(__hookwire_ret, #name)
    };
    let cx_pat = if uses_cx {
        quote!(__hookwire_cx)
    } else {
        quote!(_)
    };

    let struct_docs: Vec<TokenStream> = if doc_lines.is_empty() {
        vec![quote!(#[doc = #description])]
    } else {
        item.attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .map(|a| quote!(#a))
            .collect()
    };
    let vis = &item.vis;
    let strict = opts.strict;
    let strict_fn = strict.then(|| {
        quote!(
            fn strict(&self) -> bool {
                true
            }
        )
    });

    // Without anything of its own, the generated type is the tool. With
    // hooks, an approval rule or an error mapping, the tool is a hidden type
    // and the generated type implements `ToolDecl` with the tool's own chain.
    let tool_ty = if opts.has_own_chain() {
        quote!(__HookwireTool)
    } else {
        quote!(#ty_ident)
    };
    let own_chain = own_chain(opts, &ty_ident, &name, &args_ident, &deps)?;
    let (declare, from_deps) = declare_tool_type(krate, vis, &ty_ident, &deps);
    let hidden_fields = deps.iter().map(|(ident, ty, _)| quote!(#ident: #ty,));
    let tool_struct = if opts.has_own_chain() {
        let doc = format!(" The tool `{name}` itself, inside its own chain.");
        if deps.is_empty() {
            quote! {
                #[doc = #doc]
                #[derive(Debug, Clone, Copy, Default)]
                pub struct __HookwireTool;
            }
        } else {
            quote! {
                #[doc = #doc]
                pub struct __HookwireTool {
                    #(#hidden_fields)*
                }
            }
        }
    } else {
        quote!()
    };

    Ok(quote! {
        #(#struct_docs)*
        #declare

        #inner_fn

        const _: () = {
            #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
            #[serde(crate = #serde_path)]
            #[schemars(crate = #schemars_path)]
            #deny_unknown
            #[allow(non_camel_case_types)]
            // A parameter type that is not `Deserialize + JsonSchema` is
            // reported in one sentence that points at the user's type:
            // serde's and schemars' impls copy this bound and assume it
            // instead of failing inside their bodies. The bound is
            // higher-ranked (`for<'_> T: ToolArg`) so that rustc does not
            // also check it, and each supertrait of it, where it is
            // declared (a trivially false bound is an error of its own);
            // it fails where the tool needs the struct, in its `Tool` impl.
            pub struct #args_ident
            where
                #(#checks,)*
            {
                #(#fields)*
            }

            #from_deps

            #tool_struct

            #own_chain

            impl #krate::Tool for #tool_ty {
                type Args = #args_ident;

                fn name(&self) -> &str {
                    #name
                }

                fn description(&self) -> &str {
                    #description
                }

                #strict_fn

                async fn call(
                    &self,
                    #cx_pat: &#krate::ToolContext,
                    args: Self::Args,
                ) -> #krate::Outcome {
                    let #args_ident { #(#idents),* } = args;
                    let __hookwire_ret = #callee(#(#call_args),*) #await_call;
                    #convert
                }
            }
        };
    })
}

/// For a tool with its own hooks, approval rule or error mapping: the
/// hidden tool type and the `ToolDecl` impl whose handler is, outermost
/// first, the tool's own hooks, the approval gate, the error mapping and the
/// tool. Each user path is checked on its own token: a hook through a
/// `where` bound spanned on it (one error, there, and none in the chain
/// type), the predicate and the mapping through the calls that use them.
fn own_chain(
    opts: &ToolOptions,
    ty_ident: &syn::Ident,
    name: &str,
    args_ident: &syn::Ident,
    deps: &[Dependency],
) -> syn::Result<TokenStream> {
    if !opts.has_own_chain() {
        return Ok(TokenStream::new());
    }
    let krate = &opts.crate_path;
    let mut items = Vec::new();
    let mut bounds = Vec::new();
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
            chain_ty = quote!(#krate::Layer<#krate::approval::NeedsApproval<bool>, #chain_ty>);
            chain_init =
                quote!(#krate::Layer::new(#krate::approval::NeedsApproval::new(true), #chain_init));
            depth += 1;
        }
        Some(NeedsApproval::When(path)) => {
            let call = quote_spanned! {path.span()=>
                #krate::declare::needs_approval_by::<#args_ident, _>(#path, args)
            };
            items.push(quote! {
                /// The tool's `needs_approval` rule.
                #[derive(Debug, Clone, Copy, Default)]
                pub struct __HookwireApproval;

                impl #krate::Predicate<#krate::serde_json::Value> for __HookwireApproval {
                    fn test(&self, args: &#krate::serde_json::Value) -> bool {
                        #call
                    }
                }
            });
            chain_ty = quote!(
                #krate::Layer<#krate::approval::NeedsApproval<__HookwireApproval>, #chain_ty>
            );
            chain_init = quote!(#krate::Layer::new(
                #krate::approval::NeedsApproval::new(__HookwireApproval),
                #chain_init
            ));
            depth += 1;
        }
    }
    for hook in opts.hooks.iter().rev() {
        let lowered = crate::emit::lower_hook(krate, hook, None)?;
        let span = hook.span.unwrap_or_else(proc_macro2::Span::call_site);
        let base = crate::emit::parse_path_at(&hook.ty, "hook", &hook.span)?;
        bounds.push(crate::emit::bound(span, quote!(#base: #krate::Hook)));
        let (hty, hinit) = (&lowered.ty, &lowered.init);
        chain_ty = quote!(#krate::Layer<#hty, #chain_ty>);
        chain_init = quote!(#krate::Layer::new(#hinit, #chain_init));
        depth += 1;
    }
    bounds.reverse();
    let inners = (0..depth).map(|_| quote!(.inner()));
    let _ = name;
    Ok(quote! {
        #(#items)*

        // Nested by design: the tool's own chain.
        #[allow(clippy::type_complexity)]
        impl #krate::ToolDecl for #ty_ident
        where
            #(#bounds,)*
        {
            type Tool = __HookwireTool;
            type Handler = #chain_ty;

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

/// A `Dep<T>` parameter: its name, its `T`, and the span of its type.
type Dependency = (syn::Ident, Box<syn::Type>, proc_macro2::Span);

/// The tool's type and its `FromDeps` impl. Without dependencies, a unit
/// struct built from any agent's dependencies; with them, a struct with one
/// field per dependency, built from the dependencies `D` of any agent that
/// provides them (`T: FromRef<D>`, spanned on the parameter, so a missing
/// one is reported there and names the type).
fn declare_tool_type(
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
        .map(|(_, ty, span)| quote_spanned!(*span=> #ty: #krate::FromRef<__D>));
    let inits = deps
        .iter()
        .map(|(ident, ty, _)| quote!(#ident: <#ty as #krate::FromRef<__D>>::from_ref(deps),));
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
    use quote::ToTokens;
    let Some(syn::Meta::List(list)) = tool_attribute(item).map(|a| &a.meta) else {
        return Vec::new();
    };
    let Ok(metas) = list.parse_args_with(
        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
    ) else {
        return Vec::new();
    };
    let text = |t: &dyn ToTokens| {
        t.to_token_stream()
            .to_string()
            .replace(" (", "(")
            .replace(" :: ", "::")
    };
    let (mut hooks, mut approval, mut on_error) = (Vec::new(), None, None);
    for meta in &metas {
        match meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("hooks") => {
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

/// The `#[tool]` / `#[hookwire::tool]` attribute of a function, if it has
/// one.
fn tool_attribute(item: &ItemFn) -> Option<&syn::Attribute> {
    item.attrs.iter().find(|a| {
        let segments = &a.path().segments;
        segments.last().is_some_and(|s| s.ident == "tool")
            && (segments.len() == 1 || segments.first().is_some_and(|s| s.ident == "hookwire"))
    })
}

/// A function a card references (`tools.rs:add_one`) that is already a tool
/// through its own `#[tool]` attribute: the macro made the type (with the
/// tool's own hooks, approval rule and error mapping), so the card's type is
/// an alias of it, and the card's chains end in the tool's own chain. Cards
/// name a tool after its function, so a `name = ".."` that differs is an
/// error.
fn declared_elsewhere(
    item: &ItemFn,
    opts: &ToolOptions,
    path: &syn::Path,
    attr: &syn::Attribute,
) -> syn::Result<TokenStream> {
    let fn_name = unraw(&item.sig.ident);
    if let syn::Meta::List(list) = &attr.meta {
        let metas = list.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        );
        for meta in metas.iter().flatten() {
            if let syn::Meta::NameValue(nv) = meta
                && nv.path.is_ident("name")
                && let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(lit),
                    ..
                }) = &nv.value
                && lit.value() != fn_name
            {
                return Err(syn::Error::new(
                    lit.span(),
                    format!(
                        "a card references this tool by its function name `{fn_name}`, but `#[tool(name = \"{}\")]` names it otherwise: drop `name` (a card names a tool after its function)",
                        lit.value()
                    ),
                ));
            }
        }
    }
    let ty_ident = opts
        .type_ident
        .clone()
        .unwrap_or_else(|| item.sig.ident.clone());
    let doc = format!(" The tool `{fn_name}`, declared with `#[tool]` where it is defined.");
    let vis = &item.vis;
    Ok(quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #vis type #ty_ident = #path;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card_opts() -> ToolOptions {
        let mut o = ToolOptions::new(syn::parse_quote!(::hookwire));
        o.fn_path = Some(syn::parse_quote!(tools_rs::add_one));
        o.type_ident = Some(syn::parse_quote!(AddOneTool));
        o
    }

    #[test]
    fn a_card_reference_to_a_tool_fn_aliases_the_macros_type() {
        let f: ItemFn = syn::parse_quote! {
            /// Adds one.
            #[hookwire::tool(hooks = [audit], needs_approval)]
            pub fn add_one(x: i64) -> String { x.to_string() }
        };
        let code = tool(&f, &card_opts()).map(|t| t.to_string());
        assert_eq!(
            code.ok()
                .as_deref()
                .map(|c| c.contains("pub type AddOneTool = tools_rs :: add_one ;")),
            Some(true)
        );
        // Without the attribute, the card lowers the function itself.
        let f: ItemFn = syn::parse_quote! {
            /// Adds one.
            pub fn add_one(x: i64) -> String { x.to_string() }
        };
        let code = tool(&f, &card_opts())
            .map(|t| t.to_string())
            .unwrap_or_default();
        assert!(
            code.contains("impl :: hookwire :: Tool for AddOneTool"),
            "{code}"
        );
    }

    #[test]
    fn a_card_reference_to_a_renamed_tool_fn_is_an_error() {
        let f: ItemFn = syn::parse_quote! {
            /// Adds one.
            #[tool(name = "plus_one")]
            pub fn add_one(x: i64) -> String { x.to_string() }
        };
        let err = tool(&f, &card_opts())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.starts_with("a card references this tool by its function name `add_one`"),
            "{err}"
        );
    }
}
