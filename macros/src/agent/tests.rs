//! Mistakes in `#[agent]` whose compile-fail case would cost the trybuild
//! suite a feature's dependencies (tests/ui builds hookwire without
//! `output-schema`): the expansion is called directly and its one error
//! read. Compiled with the macros' `output-schema` feature
//! (`cargo test --workspace` turns it on: hookwire-tests asks for it; or
//! `cargo test -p hookwire-macros --features output-schema`).

use quote::quote;

use super::expand;

/// The expansion of `#[agent(name = "scorer", output_schema = schema)]` on
/// `struct Scorer;`: its errors, or the expanded tokens.
fn expand_with_schema(schema: &str) -> Result<proc_macro2::TokenStream, Vec<String>> {
    let attr = quote!(name = "scorer", output_schema = #schema);
    let item: syn::ItemStruct = syn::parse_quote!(
        struct Scorer;
    );
    expand(attr, &item).map_err(|e| e.into_iter().map(|e| e.to_string()).collect())
}

/// An `output_schema` that is JSON but not a JSON Schema is one error,
/// saying where in the schema and what a type may be.
#[test]
fn an_invalid_output_schema_is_one_error_saying_where() {
    let errors =
        match expand_with_schema(r#"{"type": "object", "properties": {"score": {"type": "int"}}}"#)
        {
            Ok(tokens) => panic!("expanded: {tokens}"),
            Err(errors) => errors,
        };
    assert_eq!(
        errors,
        [
            "invalid `output_schema` at `properties.score.type`: unknown JSON Schema type `int`: expected one of object, array, string, number, integer, boolean, null"
        ]
    );
}

/// The same schema, valid: the expansion goes through (the test above
/// fails on the schema, not on something else in the attribute).
#[test]
fn a_valid_output_schema_expands() {
    if let Err(errors) =
        expand_with_schema(r#"{"type": "object", "properties": {"score": {"type": "integer"}}}"#)
    {
        panic!("{errors:?}");
    }
}
