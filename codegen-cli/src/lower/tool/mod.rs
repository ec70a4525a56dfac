//! A function to a `Tool` impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, ReturnType};

mod args;

use args::Args;

use super::own_chain::{declare_tool_type, own_chain};
use super::signature::{check_fn_attrs, doc_line, is_default_attr, join_docs, tool_params};
use super::{ToolOptions, unraw};

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
    let name = tool_name(fn_ident, opts)?;
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
    let args = Args::of(krate, fn_ident, &params);
    let (callee, inner_fn) = body_at(item, opts, &ty_ident, &name, !args.defaults.is_empty())?;
    let struct_docs: Vec<TokenStream> = if doc_lines.is_empty() {
        vec![quote!(#[doc = #description])]
    } else {
        item.attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .map(|a| quote!(#a))
            .collect()
    };
    let deps = &args.deps;
    let own_chain = own_chain(opts, &ty_ident, &name, deps, &item.vis)?;
    let (declare, from_deps) = declare_tool_type(krate, &item.vis, &ty_ident, deps);
    let tool_struct = hidden_tool_struct(opts, &name, deps);
    let args_struct = args.args_struct(krate, opts.strict, &params);
    let defaults = &args.defaults;
    let tool_impl = tool_impl(
        opts,
        &ty_ident,
        &ToolCall {
            name: &name,
            description: &description,
            sig,
            callee,
            args: &args,
        },
    );

    Ok(quote! {
        #(#struct_docs)*
        #declare

        #inner_fn

        const _: () = {
            #args_struct

            #(#defaults)*

            #from_deps

            #tool_struct

            #own_chain

            #tool_impl
        };
    })
}

/// The tool's name: `name = ".."`, or the function's name, checked against
/// the one name rule (the spec's, a card tool's too) on the token the name
/// comes from.
fn tool_name(fn_ident: &syn::Ident, opts: &ToolOptions) -> syn::Result<String> {
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
    Ok(name)
}

/// Where the body lives: the function a card references (the callee's
/// path), or the body itself, moved into `impl Tool { fn run }` (the
/// callee `Type::run` and that impl). `has_defaults`: a parameter has a
/// `#[default(..)]`.
fn body_at(
    item: &ItemFn,
    opts: &ToolOptions,
    ty_ident: &syn::Ident,
    name: &str,
    has_defaults: bool,
) -> syn::Result<(TokenStream, Option<TokenStream>)> {
    match &opts.fn_path {
        // A function the user's crate compiles as written (a card's
        // reference): rustc does not know `#[default]` there, only
        // `#[hookwire::tool]` takes it away.
        Some(_) if has_defaults => {
            let attr = item
                .sig
                .inputs
                .iter()
                .filter_map(|i| match i {
                    FnArg::Typed(t) => t.attrs.iter().find(|a| is_default_attr(a)),
                    FnArg::Receiver(_) => None,
                })
                .next();
            Err(syn::Error::new(
                attr.map_or_else(|| item.sig.ident.span(), |a| a.span()),
                format!(
                    "a parameter default needs `#[hookwire::tool]` on the function (rustc does not know `#[default(..)]` on a plain function's parameter): add `#[hookwire::tool]` above `fn {}`",
                    unraw(&item.sig.ident)
                ),
            ))
        }
        Some(path) => Ok((quote!(#path), None)),
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
            Ok((
                quote!(#ty_ident::run),
                Some(quote! {
                    impl #ty_ident {
                        #[doc = #doc]
                        #[allow(clippy::too_many_arguments)]
                        #inner
                    }
                }),
            ))
        }
    }
}

/// The hidden type that is the tool when it has a chain of its own (hooks,
/// an approval rule or an error mapping): its dependencies are its fields.
fn hidden_tool_struct(opts: &ToolOptions, name: &str, deps: &[Dependency]) -> TokenStream {
    if !opts.has_own_chain() {
        return quote!();
    }
    let doc = format!(" The tool `{name}` itself, inside its own chain.");
    if deps.is_empty() {
        return quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Copy, Default)]
            pub struct __HookwireTool;
        };
    }
    let hidden_fields = deps.iter().map(|(ident, ty, _)| quote!(#ident: #ty,));
    quote! {
        #[doc = #doc]
        pub struct __HookwireTool {
            #(#hidden_fields)*
        }
    }
}

/// What `Tool::call` is made of: the tool's name and description, the
/// function's signature, the function it calls and its arguments.
struct ToolCall<'a> {
    name: &'a str,
    description: &'a str,
    sig: &'a syn::Signature,
    callee: TokenStream,
    args: &'a Args,
}

/// `impl Tool`: on the generated type, or on the hidden one inside the
/// tool's own chain. Without anything of its own, the generated type is
/// the tool. With hooks, an approval rule or an error mapping, the tool is
/// a hidden type and the generated type implements `ToolDecl` with the
/// tool's own chain.
fn tool_impl(opts: &ToolOptions, ty_ident: &syn::Ident, call: &ToolCall<'_>) -> TokenStream {
    let krate = &opts.crate_path;
    let ToolCall {
        name,
        description,
        sig,
        ..
    } = *call;
    let callee = &call.callee;
    let Args {
        args_ident,
        idents,
        call_args,
        uses_cx,
        ..
    } = call.args;
    let tool_ty = if opts.has_own_chain() {
        quote!(__HookwireTool)
    } else {
        quote!(#ty_ident)
    };
    let await_call = sig.asyncness.is_some().then(|| quote!(.await));
    let ret_span = match &sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => sig.ident.span(),
    };
    let convert = quote_spanned! {ret_span=>
        #krate::IntoOutcome::into_outcome(__hookwire_ret, #name)
    };
    let cx_pat = if *uses_cx {
        quote!(__hookwire_cx)
    } else {
        quote!(_)
    };
    let consts = tool_consts(opts, &sig.ident);
    let rule_fns = rule_fns(opts);
    quote! {
        impl #krate::Tool for #tool_ty {
            type Args = #args_ident;

            const DECLARED_NAME: ::core::option::Option<&'static str> =
                ::core::option::Option::Some(#name);

            #consts

            fn name(&self) -> &str {
                #name
            }

            fn description(&self) -> &str {
                #description
            }

            #rule_fns

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
    }
}

/// The `Tool` constants the options set: `FUNCTION`, `META`, and
/// `STEP_RULES = false` for a tool with neither rule (it is not asked at
/// every step).
fn tool_consts(opts: &ToolOptions, fn_ident: &syn::Ident) -> TokenStream {
    let function = match &opts.function {
        Some(label) => quote!(#label),
        None => {
            let name = super::unraw(fn_ident);
            quote!(::core::concat!(::core::module_path!(), "::", #name))
        }
    };
    let function_const = quote! {
        const FUNCTION: ::core::option::Option<&'static str> =
            ::core::option::Option::Some(#function);
    };
    let meta_const = (!opts.meta.is_empty()).then(|| {
        let slice = super::meta_slice(&opts.meta);
        quote! {
            const META: &'static [(&'static str, &'static str)] = #slice;
        }
    });
    let step_rules_const = (opts.available.is_none() && opts.instruction.is_none()).then(|| {
        quote! {
            const STEP_RULES: bool = false;
        }
    });
    quote!(#function_const #meta_const #step_rules_const)
}

/// The `Tool` functions the options set: `strict`, `approval_metadata`,
/// `available` and `instruction`, each function the user names checked on
/// the user's path (a function of another signature is one error, there).
fn rule_fns(opts: &ToolOptions) -> TokenStream {
    let krate = &opts.crate_path;
    let strict_fn = opts.strict.then(|| {
        quote!(
            fn strict(&self) -> bool {
                true
            }
        )
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
    let available_fn = opts.available.as_ref().map(|path| {
        let call = quote_spanned! {path.span()=>
            #krate::declare::available_by(#path, step)
        };
        quote! {
            fn available(step: &#krate::view::StepView<'_>) -> bool {
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
                step: &#krate::view::StepView<'_>,
            ) -> ::core::option::Option<::std::borrow::Cow<'static, str>> {
                let _ = step;
                #body
            }
        }
    });
    quote!(#strict_fn #metadata_fn #available_fn #instruction_fn)
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
            // As the macro reads it: `strict`, `strict = true` or
            // `strict = false`.
            match meta {
                syn::Meta::Path(p) if p.is_ident("strict") => strict = true,
                syn::Meta::NameValue(nv) if nv.path.is_ident("strict") => {
                    if let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Bool(b),
                        ..
                    }) = &nv.value
                    {
                        strict = b.value;
                    }
                }
                _ => {}
            }
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
            #[hookwire::tool(tool_hooks = [audit], needs_approval)]
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
