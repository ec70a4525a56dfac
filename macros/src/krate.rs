//! The one place that decides how generated code names the `hookwire` crate.

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::Span;

/// `::name`.
fn named(name: &str) -> syn::Path {
    let ident = syn::Ident::new(name, Span::call_site());
    syn::parse_quote!(::#ident)
}

/// The path of the `hookwire` crate as the user's crate sees it: `::hookwire`,
/// or `::renamed` when the dependency is renamed in Cargo.toml, or the
/// `crate = "..."` override when the user gives one.
pub(crate) fn hookwire(override_path: Option<syn::Path>) -> syn::Path {
    if let Some(path) = override_path {
        return path;
    }
    match crate_name("hookwire") {
        Ok(FoundCrate::Name(name)) if name != "hookwire" => named(&name),
        // `Itself` is hookwire's own tests, examples and doctests, which see
        // the library as `::hookwire` too.
        Ok(_) => syn::parse_quote!(::hookwire),
        // A crate that uses the chain alone: `#[tool]`, `#[hook]` and the
        // chains built from them need nothing above it (`#[agent]` does).
        Err(_) => match crate_name("hookwire-chain") {
            Ok(FoundCrate::Name(name)) => named(&name),
            _ => syn::parse_quote!(::hookwire),
        },
    }
}
