//! A function to a `Tool` impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, ReturnType};

use super::own_chain::{declare_tool_type, own_chain};
use super::signature::{
    ToolParam, check_fn_attrs, doc_line, is_default_attr, join_docs, tool_params,
};
use super::{ToolOptions, path_string, unraw};

use crate::spec::check_tool_name;

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
    check_fn_attrs(&item.attrs, &unraw(&item.sig.ident), "tool")?;
    if let (Some(path), Some(attr)) = (&opts.fn_path, tool_attribute(item)) {
        return declared_elsewhere(item, opts, path, attr);
    }
    let krate = &opts.crate_path;
    let sig = &item.sig;
    let params = tool_params(sig, opts.strict)?;
    let fn_ident = &sig.ident;
    let ty_ident = opts.type_ident.clone().unwrap_or_else(|| fn_ident.clone());

    // The one name rule (the spec's, a card tool's too), on the token the
    // name comes from: `name = ".."`, or the function's name.
    let (name, name_span) = match &opts.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (unraw(fn_ident), fn_ident.span()),
    };
    if let Err(e) = check_tool_name(&name, "tool name") {
        let fix = if opts.name.is_some() {
            String::new()
        } else {
            "; or keep the function and give the tool a name: `#[tool(name = \"...\")]`".to_owned()
        };
        return Err(syn::Error::new(
            name_span,
            format!("{}: {}{fix}", e.message, e.help),
        ));
    }
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
    // The functions that give the parameters' defaults.
    let mut defaults = Vec::new();
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
            ToolParam::Arg {
                ident,
                ty,
                docs,
                default,
            } => {
                let doc = join_docs(docs);
                let doc_attr = (!doc.is_empty()).then(|| quote!(#[doc = #doc]));
                // serde already treats a missing `Option` field as `None`, and
                // schemars leaves it out of `required`. A `#[default(..)]`
                // becomes serde's `default = "fn"`, which schemars also
                // reads: the field is optional and its schema has `default`.
                let default_attr = default.as_ref().map(|expr| {
                    let (attr, item) = default_fn(krate, ident, ty, expr);
                    defaults.push(item);
                    attr
                });
                fields.push(quote! { #doc_attr #default_attr pub #ident: #ty, });
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
    // The parameters' bounds as serde's `bound` attribute, one string whose
    // span is the first parameter's type (serde parses it there).
    let bound = {
        let text = checks
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let span = params
            .iter()
            .find_map(|p| match p {
                ToolParam::Arg { ty, .. } => Some(ty.span()),
                _ => None,
            })
            .unwrap_or_else(proc_macro2::Span::call_site);
        syn::LitStr::new(&text, span)
    };
    let schema_name = args_ident.to_string();

    // Where the body lives.
    let is_async = sig.asyncness.is_some();
    let (callee, inner_fn) = match &opts.fn_path {
        // A function the user's crate compiles as written (a card's
        // reference): rustc does not know `#[default]` there, only
        // `#[hookwire::tool]` takes it away.
        Some(_) if !defaults.is_empty() => {
            let attr = item
                .sig
                .inputs
                .iter()
                .filter_map(|i| match i {
                    FnArg::Typed(t) => t.attrs.iter().find(|a| is_default_attr(a)),
                    FnArg::Receiver(_) => None,
                })
                .next();
            return Err(syn::Error::new(
                attr.map_or_else(|| item.sig.ident.span(), |a| a.span()),
                format!(
                    "a parameter default needs `#[hookwire::tool]` on the function (rustc does not know `#[default(..)]` on a plain function's parameter): add `#[hookwire::tool]` above `fn {}`",
                    unraw(fn_ident)
                ),
            ));
        }
        Some(path) => (quote!(#path), None),
        None => {
            let mut inner = item.clone();
            inner.attrs.retain(|a| !a.path().is_ident("doc"));
            inner.vis = item.vis.clone();
            inner.sig.ident = format_ident!("run");
            for input in &mut inner.sig.inputs {
                if let FnArg::Typed(t) = input {
                    t.attrs
                        .retain(|a| !a.path().is_ident("doc") && !is_default_attr(a));
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
    // Checked on the user's path: a function of another signature is one
    // error, there.
    let available_fn = opts.available.as_ref().map(|path| {
        let call = quote_spanned! {path.span()=>
            #krate::declare::available_by(#path, step)
        };
        quote! {
            fn available(step: &#krate::StepView<'_>) -> bool {
                #call
            }
        }
    });
    let instruction_fn = opts.instruction.as_ref().map(|instruction| {
        let body = match instruction {
            super::Instruction::Text(text) => quote! {
                ::core::option::Option::Some(::std::borrow::Cow::Borrowed(#text))
            },
            super::Instruction::Fn(path) => quote_spanned! {path.span()=>
                #krate::declare::instruction_by(#path, step)
            },
        };
        quote! {
            fn instruction(
                step: &#krate::StepView<'_>,
            ) -> ::core::option::Option<::std::borrow::Cow<'static, str>> {
                let _ = step;
                #body
            }
        }
    });
    // A tool with neither rule is not asked at every step.
    let step_rules_const = (opts.available.is_none() && opts.instruction.is_none()).then(|| {
        quote! {
            const STEP_RULES: bool = false;
        }
    });
    let meta_const = (!opts.meta.is_empty()).then(|| {
        let slice = super::meta_slice(&opts.meta);
        quote! {
            const META: &'static [(&'static str, &'static str)] = #slice;
        }
    });
    let metadata_fn = opts.approval_metadata.as_ref().map(|path| {
        let call = quote_spanned! {path.span()=>
            #krate::declare::approval_metadata_for::<Self, _>(#path, args)
        };
        quote! {
            fn approval_metadata(
                args: &Self::Args,
            ) -> ::core::option::Option<#krate::serde_json::Value> {
                #call
            }
        }
    });

    // Without anything of its own, the generated type is the tool. With
    // hooks, an approval rule or an error mapping, the tool is a hidden type
    // and the generated type implements `ToolDecl` with the tool's own chain.
    let tool_ty = if opts.has_own_chain() {
        quote!(__HookwireTool)
    } else {
        quote!(#ty_ident)
    };
    let own_chain = own_chain(opts, &ty_ident, &name, &deps, &item.vis)?;
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
            // A parameter type that is not `Deserialize + JsonSchema` is
            // reported once, in one sentence that points at the user's
            // type: serde's and schemars' impls get this bound instead of
            // failing inside their bodies, and the tool's `Tool` impl, which
            // needs them, fails on it once. The bound is on the impls, not on
            // the struct (it would be checked a second time wherever the
            // struct is named), so the struct has a type parameter, for the
            // derives to take it; and it is higher-ranked (`for<'_> T:
            // ToolArg`) so that rustc does not check it where the impls are
            // declared (a trivially false bound is an error of its own).
            #[serde(bound = #bound)]
            #[schemars(rename = #schema_name, bound = #bound)]
            #deny_unknown
            #[allow(non_camel_case_types)]
            pub struct #args_ident<__HookwireArgs: ?::core::marker::Sized = ()> {
                #(#fields)*
                #[serde(skip)]
                #[schemars(skip)]
                __hookwire: ::core::marker::PhantomData<__HookwireArgs>,
            }

            #(#defaults)*

            #from_deps

            #tool_struct

            #own_chain

            impl #krate::Tool for #tool_ty {
                type Args = #args_ident;

                const DECLARED_NAME: ::core::option::Option<&'static str> =
                    ::core::option::Option::Some(#name);

                #meta_const

                #step_rules_const

                fn name(&self) -> &str {
                    #name
                }

                fn description(&self) -> &str {
                    #description
                }

                #strict_fn

                #metadata_fn

                #available_fn

                #instruction_fn

                async fn call(
                    &self,
                    #cx_pat: &#krate::ToolContext,
                    args: Self::Args,
                ) -> #krate::Outcome {
                    let #args_ident { #(#idents,)* .. } = args;
                    let __hookwire_ret = #callee(#(#call_args),*) #await_call;
                    #convert
                }
            }
        };
    })
}

/// A parameter's `#[default(expr)]`: serde's field attribute and the
/// function it names, which returns `expr` (spanned as written, so a value
/// of the wrong type is reported on it) and checks that the type is
/// `Serialize`, for the schema to show the value.
fn default_fn(
    krate: &syn::Path,
    ident: &syn::Ident,
    ty: &syn::Type,
    expr: &syn::Expr,
) -> (TokenStream, TokenStream) {
    let fn_ident = format_ident!("__hookwire_default_{}", unraw(ident));
    let fn_name = fn_ident.to_string();
    let check = quote_spanned! {ty.span()=>
        #krate::__private::check::default_arg::<#ty>();
    };
    let item = quote! {
        #[allow(non_snake_case)]
        fn #fn_ident() -> #ty {
            #check
            #expr
        }
    };
    (quote!(#[serde(default = #fn_name)]), item)
}

/// A `Dep<T>` parameter: its name, its `T`, and the span of its type.
pub(super) type Dependency = (syn::Ident, Box<syn::Type>, proc_macro2::Span);

/// The `#[tool]` / `#[hookwire::tool]` attribute of a function, if it has
/// one.
pub(super) fn tool_attribute(item: &ItemFn) -> Option<&syn::Attribute> {
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
    let mut strict = false;
    if let syn::Meta::List(list) = &attr.meta {
        let metas = list.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        );
        for meta in metas.iter().flatten() {
            strict |= matches!(meta, syn::Meta::Path(p) if p.is_ident("strict"));
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
    // The macro checks the same signature where the function is: a card
    // that `check` accepts then compiles.
    tool_params(&item.sig, strict)?;
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
