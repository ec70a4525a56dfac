//! `meta(key = "value", flag)`: the metadata a tool (`#[tool(meta(..))]`)
//! or a child agent entry (`agents = [X(meta(..))]`) declares, read the
//! same way by the macros and by `cardgen` (which reads a referenced
//! function's `#[hookwire::tool(meta(..))]`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use crate::spec::{ToolMeta, check_meta_key, check_meta_value};

/// The pairs of a `meta(..)` list, in declared order: `key = "value"`, or
/// a bare `key`, whose value is `"true"` (`key = true` / `false` are
/// `"true"` / `"false"`). A key given twice, a value that is not a string
/// or a bool, or a key or value the spec's rules refuse is an error on
/// that token.
pub fn parse_meta(list: &syn::MetaList) -> syn::Result<Vec<(String, String)>> {
    let items = list.parse_args_with(
        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
    )?;
    let mut out: Vec<(String, String)> = Vec::new();
    for item in &items {
        let path = item.path();
        let key = match path.get_ident() {
            Some(ident) => crate::lower::unraw(ident),
            None => {
                return Err(syn::Error::new(
                    path.span(),
                    "a metadata key is one word: expected `meta(risk = \"high\")` or `meta(destructive)`",
                ));
            }
        };
        let value = match item {
            syn::Meta::Path(_) => "true".to_owned(),
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => {
                    check_meta_value(&key, &s.value())
                        .map_err(|e| syn::Error::new(s.span(), e.to_string()))?;
                    s.value()
                }
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                }) => b.value.to_string(),
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        format!(
                            "the value of metadata key `{key}` must be a string: expected `{key} = \"value\"` (or `{key}` alone for `\"true\"`)"
                        ),
                    ));
                }
            },
            syn::Meta::List(l) => {
                return Err(syn::Error::new(
                    l.delimiter.span().open(),
                    format!("expected `{key} = \"value\"` or `{key}` in `meta(..)`"),
                ));
            }
        };
        check_meta_key(&key).map_err(|e| syn::Error::new(path.span(), e.to_string()))?;
        if out.iter().any(|(k, _)| *k == key) {
            return Err(syn::Error::new(
                path.span(),
                format!("metadata key `{key}` is declared twice: give each key once"),
            ));
        }
        out.push((key, value));
    }
    Ok(out)
}

/// The `meta(..)` of a function's `#[tool]` / `#[hookwire::tool]`
/// attribute: none without the attribute or the key.
pub fn tool_meta(item: &syn::ItemFn) -> syn::Result<ToolMeta> {
    let Some(syn::Meta::List(list)) = super::tool::tool_attribute(item).map(|a| &a.meta) else {
        return Ok(ToolMeta::EMPTY);
    };
    let metas = list.parse_args_with(
        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
    )?;
    for meta in &metas {
        if let syn::Meta::List(l) = meta
            && l.path.is_ident("meta")
        {
            return parse_meta(l).map(ToolMeta::from_pairs);
        }
    }
    Ok(ToolMeta::EMPTY)
}

/// The pairs as a `&'static [(&'static str, &'static str)]` expression.
pub fn meta_slice(pairs: &[(String, String)]) -> TokenStream {
    let pairs = pairs.iter().map(|(k, v)| quote!((#k, #v)));
    quote!(&[#(#pairs),*])
}
