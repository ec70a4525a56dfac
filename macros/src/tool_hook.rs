//! `#[tool]` and `#[hook]`: parse the attribute, call the shared lowering.

use darling::FromMeta;
use darling::ast::NestedMeta;
use hookwire_codegen::lower::{self, HookOptions, OnFailure, ToolOptions};
use proc_macro2::TokenStream;
use quote::quote;

use crate::{keys, krate};

const TOOL_KEYS: &[&str] = &["name", "description", "strict", "crate"];
const HOOK_KEYS: &[&str] = &["match", "on_failure", "timeout_ms", "name", "crate"];

#[derive(Debug, FromMeta)]
struct ToolAttr {
    #[darling(default)]
    name: Option<syn::LitStr>,
    #[darling(default)]
    description: Option<syn::LitStr>,
    #[darling(default)]
    strict: bool,
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
}

#[derive(Debug, FromMeta)]
struct HookAttr {
    #[darling(default, rename = "match")]
    matcher: Option<syn::LitStr>,
    #[darling(default)]
    on_failure: Option<syn::LitStr>,
    #[darling(default)]
    timeout_ms: Option<syn::LitInt>,
    #[darling(default)]
    name: Option<syn::LitStr>,
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
}

fn parse_fn(item: TokenStream, attr: &str) -> syn::Result<syn::ItemFn> {
    syn::parse2::<syn::ItemFn>(item)
        .map_err(|e| syn::Error::new(e.span(), format!("`#[{attr}]` goes on a function: {e}")))
}

/// On error, the error plus a stand-in type of the same name, so that one
/// mistake gives one error instead of one more at every use.
fn with_stub(error: syn::Error, item: &syn::ItemFn) -> TokenStream {
    let error = error.to_compile_error();
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let docs = item.attrs.iter().filter(|a| a.path().is_ident("doc"));
    quote! {
        #error
        #(#docs)*
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident;
    }
}

pub(crate) fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match parse_fn(item, "tool") {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
    };
    match expand_tool(attr, &item) {
        Ok(tokens) => tokens,
        Err(e) => with_stub(e, &item),
    }
}

fn expand_tool(attr: TokenStream, item: &syn::ItemFn) -> syn::Result<TokenStream> {
    let metas = NestedMeta::parse_meta_list(attr)?;
    keys::check(&metas, "tool", TOOL_KEYS)?;
    let parsed = ToolAttr::from_list(&metas).map_err(syn::Error::from)?;
    let mut opts = ToolOptions::new(krate::hookwire(parsed.krate));
    opts.name = parsed.name;
    opts.description = parsed.description;
    opts.strict = parsed.strict;
    lower::tool(item, &opts)
}

pub(crate) fn hook(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match parse_fn(item, "hook") {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
    };
    match expand_hook(attr, &item) {
        Ok(tokens) => tokens,
        Err(e) => with_stub(e, &item),
    }
}

fn expand_hook(attr: TokenStream, item: &syn::ItemFn) -> syn::Result<TokenStream> {
    let metas = NestedMeta::parse_meta_list(attr)?;
    keys::check(&metas, "hook", HOOK_KEYS)?;
    let parsed = HookAttr::from_list(&metas).map_err(syn::Error::from)?;
    let mut opts = HookOptions::new(krate::hookwire(parsed.krate));
    opts.matcher = parsed.matcher;
    if let Some(lit) = &parsed.on_failure {
        opts.on_failure = OnFailure::from_lit(lit)?;
    }
    if let Some(lit) = &parsed.timeout_ms {
        let ms = lit.base10_parse::<u64>().map_err(|_| {
            syn::Error::new(
                lit.span(),
                "`timeout_ms` must be a whole number of milliseconds: expected `timeout_ms = 500`",
            )
        })?;
        opts.timeout_ms = Some((ms, lit.span()));
    }
    opts.name = parsed.name.map(|n| n.value());
    lower::hook(item, &opts)
}
