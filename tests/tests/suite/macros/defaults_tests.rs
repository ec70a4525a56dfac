//! Argument defaults: `#[default(..)]` on a tool parameter and serde's
//! `default` on an `#[args]` field. The schema shows the value and leaves
//! the field out of `required`; a call without it gets the value; strict
//! tools keep every field required and no `default` in the schema.

use hookwire::{CallScope, Router, Tool, ToolArgs, ToolCall, ToolSet};
use serde_json::json;

/// Searches the web.
#[hookwire::tool]
fn search(
    query: String,
    /// How many results to return.
    #[default(10)]
    num_results: u32,
    #[default(String::from("en"))] lang: String,
) -> String {
    format!("{query}/{num_results}/{lang}")
}

fn five() -> u8 {
    5
}

/// A page of results.
#[hookwire::args]
pub struct Page {
    /// The page size.
    #[serde(default = "five")]
    size: u8,
    /// A field named like the schema keyword.
    #[serde(default)]
    default: bool,
}

/// Lists a page.
#[hookwire::tool]
fn list(page: Page) -> String {
    format!("{}/{}", page.size, page.default)
}

/// Lists a page, strictly.
#[hookwire::tool(strict)]
fn list_strict(page: Page) -> String {
    format!("{}/{}", page.size, page.default)
}

fn run(tools: &impl ToolSet, name: &str, args: serde_json::Value) -> (bool, String) {
    let result = super::block_on(tools.call(
        &CallScope::new("t"),
        ToolCall::new("d1", name, ToolArgs::from_json(args.to_string())),
    ));
    (result.is_error, result.text_content())
}

#[test]
fn a_parameter_default_is_in_the_schema_and_not_required() {
    assert_eq!(
        search {}.definition().input_schema,
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "num_results": {
                    "type": "integer",
                    "format": "uint32",
                    "minimum": 0,
                    "description": "How many results to return.",
                    "default": 10
                },
                "lang": {"type": "string", "default": "en"}
            },
            "required": ["query"]
        })
    );
}

#[test]
fn a_call_without_a_defaulted_argument_gets_the_default() {
    let tools = Router::new().tool(search {}).tool(list {});
    assert_eq!(
        run(&tools, "search", json!({"query": "q"})),
        (false, "q/10/en".into())
    );
    assert_eq!(
        run(
            &tools,
            "search",
            json!({"query": "q", "num_results": 3, "lang": "fr"})
        ),
        (false, "q/3/fr".into())
    );
    assert_eq!(
        run(&tools, "list", json!({"page": {}})),
        (false, "5/false".into())
    );
    assert_eq!(
        list {}.definition().input_schema["properties"]["page"],
        json!({
            "type": "object",
            "description": "A page of results.",
            "properties": {
                "size": {
                    "type": "integer",
                    "format": "uint8",
                    "minimum": 0,
                    "maximum": 255,
                    "description": "The page size.",
                    "default": 5
                },
                "default": {
                    "type": "boolean",
                    "description": "A field named like the schema keyword.",
                    "default": false
                }
            }
        })
    );
}

/// Strict mode: every property required, no `default` keyword anywhere
/// (a field named `default` stays a field), no other property allowed.
#[test]
fn a_strict_tool_keeps_defaulted_fields_required_without_default() {
    let def = list_strict {}.definition();
    assert!(def.strict);
    assert_eq!(
        def.input_schema,
        json!({
            "type": "object",
            "properties": {
                "page": {
                    "type": "object",
                    "description": "A page of results.",
                    "properties": {
                        "size": {
                            "type": "integer",
                            "format": "uint8",
                            "minimum": 0,
                            "maximum": 255,
                            "description": "The page size."
                        },
                        "default": {
                            "type": "boolean",
                            "description": "A field named like the schema keyword."
                        }
                    },
                    "required": ["size", "default"],
                    "additionalProperties": false
                }
            },
            "required": ["page"],
            "additionalProperties": false
        })
    );
}
