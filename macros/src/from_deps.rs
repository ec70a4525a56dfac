//! `#[derive(FromDeps)]`: a hand-written tool or hook type built from an
//! agent's dependencies, each field taken with `FromRef`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::krate;

pub(crate) fn derive(item: TokenStream) -> TokenStream {
    match expand(item) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

fn expand(item: TokenStream) -> syn::Result<TokenStream> {
    let input: syn::DeriveInput = syn::parse2(item)?;
    let syn::Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(FromDeps)]` goes on a struct (each field is taken from the agent's dependencies with `FromRef`); for an enum, implement `hookwire::FromDeps` by hand",
        ));
    };
    let krate = krate::hookwire(None);
    let ident = &input.ident;
    // The impl's own parameter for the dependency type, after the type's.
    let mut generics = input.generics.clone();
    generics.params.push(syn::parse_quote!(__D));
    let (impl_generics, _, _) = generics.split_for_impl();
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut bounds: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    let take = |ty: &syn::Type| quote!(<#ty as #krate::deps::FromRef<__D>>::from_ref(deps));
    let body = match &data.fields {
        syn::Fields::Unit => quote!(#ident),
        syn::Fields::Named(fields) => {
            let inits = fields.named.iter().map(|f| {
                let name = &f.ident;
                let value = take(&f.ty);
                quote!(#name: #value)
            });
            quote!(#ident { #(#inits,)* })
        }
        syn::Fields::Unnamed(fields) => {
            let inits = fields.unnamed.iter().map(|f| take(&f.ty));
            quote!(#ident(#(#inits,)*))
        }
    };
    for field in data.fields.iter() {
        let ty = &field.ty;
        bounds.push(quote_spanned!(ty.span()=> #ty: #krate::deps::FromRef<__D>));
    }
    let deps = if data.fields.is_empty() {
        quote!(_)
    } else {
        quote!(deps)
    };
    Ok(quote! {
        impl #impl_generics #krate::FromDeps<__D> for #ident #ty_generics
        where
            #(#bounds,)*
        {
            fn from_deps(#deps: &__D) -> Self {
                #body
            }
        }

        // If the type is a hook, generated agents build it with this.
        impl #impl_generics #krate::deps::BuildHook<__D> for #ident #ty_generics
        where
            Self: #krate::deps::IsHook<__D> + #krate::FromDeps<__D>,
        {
            fn build_hook(deps: &__D) -> Self {
                <Self as #krate::FromDeps<__D>>::from_deps(deps)
            }
        }
    })
}
