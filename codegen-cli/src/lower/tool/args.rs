//! A tool's parameters: the generated argument struct (serde + schemars),
//! the arguments of the call to the tool's function, and its dependencies.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::Dependency;
use crate::lower::signature::{ToolParam, join_docs};
use crate::lower::{path_string, unraw};

/// What a tool's parameters lower to.
pub(super) struct Args {
    /// The argument struct's name, after the tool's function, so that a
    /// type error reads like `hookwire::declare::ArgsOf<delete>`, the name users
    /// write for it.
    pub(super) args_ident: syn::Ident,
    /// The argument struct's fields.
    fields: Vec<TokenStream>,
    /// Each field type's `ToolArg` bound.
    checks: Vec<TokenStream>,
    /// Each field's type.
    field_types: Vec<syn::Type>,
    /// The fields' names, as `call` destructures them.
    pub(super) idents: Vec<syn::Ident>,
    /// The arguments of the call to the tool's function.
    pub(super) call_args: Vec<TokenStream>,
    /// Whether the function takes the `&ToolContext`.
    pub(super) uses_cx: bool,
    /// The functions that give the parameters' defaults.
    pub(super) defaults: Vec<TokenStream>,
    /// Dependencies: fields of the tool type, built from the agent's
    /// dependencies, and a clone of each passed to every call.
    pub(super) deps: Vec<Dependency>,
}

impl Args {
    /// Lowers the parameters `params` of the function `fn_ident`.
    pub(super) fn of(krate: &syn::Path, fn_ident: &syn::Ident, params: &[ToolParam]) -> Self {
        let mut args = Self {
            args_ident: format_ident!("ArgsOf_{}", unraw(fn_ident)),
            fields: Vec::new(),
            checks: Vec::new(),
            field_types: Vec::new(),
            idents: Vec::new(),
            call_args: Vec::new(),
            uses_cx: false,
            defaults: Vec::new(),
            deps: Vec::new(),
        };
        for param in params {
            match param {
                ToolParam::Context => {
                    args.uses_cx = true;
                    args.call_args.push(quote!(__hookwire_cx));
                }
                ToolParam::Dep { ident, ty, written } => {
                    args.deps.push((ident.clone(), ty.clone(), written.span()));
                    args.call_args
                        .push(quote!(#krate::Dep(::core::clone::Clone::clone(&self.#ident))));
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
                        args.defaults.push(item);
                        attr
                    });
                    args.fields
                        .push(quote! { #doc_attr #default_attr pub #ident: #ty, });
                    args.checks.push(crate::emit::bound(
                        ty.span(),
                        quote!(for<'__hookwire> #ty: #krate::__private::check::ToolArg),
                    ));
                    args.field_types.push((**ty).clone());
                    args.idents.push(ident.clone());
                    args.call_args.push(quote!(#ident));
                }
            }
        }
        args
    }

    /// The parameters' bounds as serde's `bound` attribute, one string whose
    /// span is the first parameter's type (serde parses it there).
    fn serde_bound(&self, params: &[ToolParam]) -> syn::LitStr {
        let text = self
            .checks
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
    }

    /// The parameters' `Serialize` bounds, for serde's `bound(serialize)`,
    /// spanned like [`serde_bound`](Self::serde_bound)'s.
    fn serialize_bound(&self, krate: &syn::Path, at: &syn::LitStr) -> syn::LitStr {
        let text = self
            .field_types
            .iter()
            .map(|ty| quote!(for<'__hookwire> #ty: #krate::__private::serde::Serialize).to_string())
            .collect::<Vec<_>>()
            .join(", ");
        syn::LitStr::new(&text, at.span())
    }

    /// The argument struct, deserialized from the call's arguments and
    /// described by its JSON schema.
    pub(super) fn args_struct(
        &self,
        krate: &syn::Path,
        strict: bool,
        params: &[ToolParam],
    ) -> TokenStream {
        let serde_path = path_string(&syn::parse_quote!(#krate::__private::serde));
        let schemars_path = path_string(&syn::parse_quote!(#krate::__private::schemars));
        let args_ident = &self.args_ident;
        let fields = &self.fields;
        let deny_unknown = strict.then(|| quote!(#[serde(deny_unknown_fields)]));
        let bound = self.serde_bound(params);
        let serialize_bound = self.serialize_bound(krate, &bound);
        let schema_name = args_ident.to_string();
        quote! {
            // `Serialize` too, for a typed hook that rewrites the arguments
            // (`ToolArgs::typed_mut`): implemented when every parameter
            // type is `Serialize` (the same higher-ranked bound as below).
            #[derive(
                #krate::__private::serde::Deserialize,
                #krate::__private::serde::Serialize,
                #krate::__private::schemars::JsonSchema
            )]
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
            #[serde(bound(deserialize = #bound, serialize = #serialize_bound))]
            #[schemars(rename = #schema_name, bound = #bound)]
            #deny_unknown
            #[allow(non_camel_case_types)]
            pub struct #args_ident<__HookwireArgs: ?::core::marker::Sized = ()> {
                #(#fields)*
                #[serde(skip)]
                #[schemars(skip)]
                __hookwire: ::core::marker::PhantomData<__HookwireArgs>,
            }
        }
    }
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
