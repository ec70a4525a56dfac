//! The input schema of an agent called as a tool (`tool_input_schema`).

use super::fields::key;
use super::{SpecError, SpecField};
use crate::spec::AgentSpec;

/// Checks a `tool_input_schema`: a JSON Schema of an object (a mapping
/// whose `type`, if given, is `object`), since model APIs take a tool's
/// parameters as an object.
///
/// ```
/// use hookwire_codegen::spec::check_tool_input_schema;
/// use serde_json::json;
///
/// assert!(check_tool_input_schema(&json!({"type": "object"})).is_ok());
/// assert!(check_tool_input_schema(&json!({"properties": {}})).is_ok());
/// assert!(check_tool_input_schema(&json!({"type": "string"})).is_err());
/// assert!(check_tool_input_schema(&json!([1])).is_err());
/// ```
pub fn check_tool_input_schema(schema: &serde_json::Value) -> Result<(), String> {
    match schema {
        serde_json::Value::Object(map) => match map.get("type") {
            None => Ok(()),
            Some(serde_json::Value::String(t)) if t == "object" => Ok(()),
            Some(_) => Err(format!(
                "`{}` must describe an object (`type: object`)",
                key::TOOL_INPUT_SCHEMA
            )),
        },
        _ => Err(not_a_schema()),
    }
}

impl AgentSpec {
    /// `tool_input_schema`, if given: JSON of a schema of an object.
    pub(super) fn check_input_schema(&self, out: &mut Vec<SpecError>) {
        if let Some(schema) = &self.tool_input_schema {
            let checked = serde_json::from_str::<serde_json::Value>(schema)
                .map_err(|_| not_a_schema())
                .and_then(|v| check_tool_input_schema(&v));
            if let Err(message) = checked {
                out.push(SpecError::new(SpecField::ToolInputSchema, message));
            }
        }
    }
}

/// The message for a `tool_input_schema` that is no JSON Schema object.
fn not_a_schema() -> String {
    format!("`{}` must be a JSON Schema object", key::TOOL_INPUT_SCHEMA)
}
