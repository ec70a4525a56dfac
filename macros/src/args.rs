//! `#[args]`: a type that tools take as a parameter, with serde's and
//! schemars' derives reached through hookwire, so that the user's crate
//! needs neither as a dependency.

use proc_macro2::TokenStream;
use quote::quote;

use crate::krate;

pub(crate) fn args(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let error = syn::Error::new_spanned(
            attr,
            "`#[hookwire::args]` takes no options: write `#[hookwire::args]`",
        )
        .to_compile_error();
        return quote!(#error #item);
    }
    let item = match syn::parse2::<syn::DeriveInput>(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                format!("`#[hookwire::args]` goes on a struct or an enum: {e}"),
            )
            .to_compile_error();
            return quote!(#e #item);
        }
    };
    let krate = krate::hookwire(None);
    let serde = quote!(#krate::__private::serde)
        .to_string()
        .replace(' ', "");
    let schemars = quote!(#krate::__private::schemars)
        .to_string()
        .replace(' ', "");
    quote! {
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde)]
        #[schemars(crate = #schemars)]
        #item
    }
}
