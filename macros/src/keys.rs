//! Attribute keys: an unknown key is an error on that key, with the
//! nearest known key as a suggestion and the list of valid keys.

use darling::ast::NestedMeta;
use syn::spanned::Spanned;

use hookwire_codegen::spec::UnknownValue;
pub(crate) use hookwire_codegen::spec::did_you_mean;

/// The error for a string value that is not one of its key's spellings
/// (`on_failure = "opne"`), spanned on the literal, with the nearest
/// spelling and the list.
pub(crate) fn unknown_value(lit: &syn::LitStr, key: &str, e: &UnknownValue) -> syn::Error {
    let hint = did_you_mean(&lit.value(), e.expected.iter().copied())
        .map(|k| format!("did you mean `\"{k}\"`? "))
        .unwrap_or_default();
    syn::Error::new(
        lit.span(),
        format!(
            "unknown `{key}` value `{}`: {hint}expected one of {}",
            lit.value(),
            e.expected
                .iter()
                .map(|v| format!("`\"{v}\"`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

/// A positive whole number from a literal (the shared rule,
/// `hookwire_spec::check_positive`), or an error spanned on it with an
/// example in attribute syntax.
pub(crate) fn positive(lit: &syn::Lit, key: &str, example: &str) -> syn::Result<u64> {
    let message = match lit {
        syn::Lit::Int(i) => match i.base10_parse::<i128>() {
            Ok(n) => match hookwire_codegen::spec::check_positive(key, n) {
                Ok(n) => return Ok(n),
                Err(message) => message,
            },
            Err(_) => format!("`{key}` must be a positive integer, found `{i}`"),
        },
        other => format!(
            "`{key}` must be a positive integer, found `{}`",
            quote::ToTokens::to_token_stream(other)
        ),
    };
    Err(syn::Error::new(
        lit.span(),
        format!("{message}: expected `{key} = {example}`"),
    ))
}

/// The key of one attribute item (`name = ..`, `name(..)`, `name`).
pub(crate) fn key_of(meta: &NestedMeta) -> Option<(String, proc_macro2::Span)> {
    let path = match meta {
        NestedMeta::Meta(m) => m.path(),
        NestedMeta::NameValueInvalidExpr(nv) => &nv.path,
        NestedMeta::Lit(_) => return None,
    };
    let key = path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::");
    Some((key, path.span()))
}

/// Checks every key of `where_` (`` `#[tool(...)]` ``, `` this `tool_hooks` entry ``)
/// against `known`.
pub(crate) fn check(metas: &[NestedMeta], where_: &str, known: &[&str]) -> syn::Result<()> {
    let mut errors: Option<syn::Error> = None;
    let mut seen = Vec::new();
    for meta in metas {
        let error = match key_of(meta) {
            None => Some(syn::Error::new(
                meta.span(),
                format!(
                    "unexpected literal in {where_}: expected `key = value` with a key among {}",
                    list(known)
                ),
            )),
            Some((key, span)) if !known.contains(&key.as_str()) => {
                let hint = match renamed(&key, known)
                    .or_else(|| did_you_mean(&key, known.iter().copied()))
                {
                    Some(k) => format!("did you mean `{k}`? "),
                    None => String::new(),
                };
                Some(syn::Error::new(
                    span,
                    format!(
                        "unknown key `{key}` in {where_}: {hint}expected one of {}",
                        list(known)
                    ),
                ))
            }
            Some((key, span)) if seen.contains(&key) => Some(syn::Error::new(
                span,
                format!("duplicate key `{key}` in {where_}: give each key once"),
            )),
            Some((key, _)) => {
                seen.push(key);
                None
            }
        };
        if let Some(e) = error {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    errors.map_or(Ok(()), Err)
}

/// A key's new name where `known` holds it: a tool's chain hooks are
/// `tool_hooks`, as on `#[agent]` and in cards (`hooks` are an agent's
/// lifecycle hooks).
fn renamed<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    const RENAMED: [(&str, &str); 1] = [("hooks", "tool_hooks")];
    RENAMED
        .iter()
        .find(|(old, _)| *old == key)
        .and_then(|(_, new)| known.iter().copied().find(|k| k == new))
}

fn list(known: &[&str]) -> String {
    known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
