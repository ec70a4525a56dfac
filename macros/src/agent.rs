pub(crate) fn agent(
    _a: proc_macro2::TokenStream,
    i: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    i
}
