//! An agent's output schema (`output_schema:` in a card,
//! `#[agent(output_schema = ..)]`): checked to be a JSON Schema (through
//! the `jsonschema` crate, feature `output-schema`), with the place of the
//! first mistake, so that each front end reports it there.

use serde_json::Value;

/// One step of the path to a mistake in a schema: a key or an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaStep {
    /// A key of a mapping.
    Key(String),
    /// An index of a list.
    Index(usize),
}

/// A mistake in an output schema: where it is (from the schema's root)
/// and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The keys and indices that lead to it.
    pub path: Vec<SchemaStep>,
    /// What is wrong, with what would be right.
    pub message: String,
}

/// The JSON Schema types.
#[cfg(feature = "output-schema")]
const TYPES: &str = "object, array, string, number, integer, boolean, null";

/// Checks that `schema` is a JSON Schema: valid against the meta-schema of
/// its `$schema` (draft 2020-12 when it names none). Unknown keywords are
/// annotations and pass.
///
/// ```
/// use hookwire_spec::{SchemaStep, check_output_schema};
/// use serde_json::json;
///
/// assert!(check_output_schema(&json!({"type": "object", "properties": {"a": {"type": "integer"}}})).is_ok());
/// let e = check_output_schema(&json!({"properties": {"a": {"type": "int"}}})).unwrap_err();
/// assert_eq!(e.path, [SchemaStep::Key("properties".into()), SchemaStep::Key("a".into()), SchemaStep::Key("type".into())]);
/// assert_eq!(e.message, "unknown JSON Schema type `int`: expected one of object, array, string, number, integer, boolean, null");
/// ```
#[cfg(feature = "output-schema")]
pub fn check_output_schema(schema: &Value) -> Result<(), SchemaError> {
    if let Some(named) = schema.get("$schema")
        && jsonschema::Draft::default().detect(schema) == jsonschema::Draft::Unknown
    {
        // The crate would try to fetch it; it resolves nothing here.
        return Err(SchemaError {
            path: vec![SchemaStep::Key("$schema".into())],
            message: format!(
                "unknown meta-schema {named}: name a JSON Schema draft (such as \"https://json-schema.org/draft/2020-12/schema\") or remove `$schema`"
            ),
        });
    }
    let Err(e) = jsonschema::meta::validate(schema) else {
        return Ok(());
    };
    let path = pointer_steps(schema, e.instance_path().as_str());
    let message = match (path.last(), e.instance().as_ref()) {
        (Some(SchemaStep::Key(k)), Value::String(t)) if k == "type" => {
            format!("unknown JSON Schema type `{t}`: expected one of {TYPES}")
        }
        _ => e.to_string(),
    };
    Err(SchemaError { path, message })
}

/// The steps of the JSON Pointer `pointer` (`/tasks/1/days`) inside
/// `value`: a step into a list is an index, any other a key (so a key
/// `"1"` of a mapping stays a key).
pub fn pointer_steps(value: &Value, pointer: &str) -> Vec<SchemaStep> {
    let mut at = Some(value);
    let mut steps = Vec::new();
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        let index = match at {
            Some(Value::Array(items)) => segment.parse::<usize>().ok().filter(|i| *i < items.len()),
            _ => None,
        };
        match index {
            Some(i) => {
                at = at.and_then(|v| v.get(i));
                steps.push(SchemaStep::Index(i));
            }
            None => {
                at = at.and_then(|v| v.get(&segment));
                steps.push(SchemaStep::Key(segment));
            }
        }
    }
    steps
}

/// The path `path` as a person reads it: `tasks[1].days` (nothing for
/// the root).
pub fn steps_text(path: &[SchemaStep]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            SchemaStep::Key(k) if out.is_empty() => out.push_str(k),
            SchemaStep::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            SchemaStep::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[cfg(feature = "output-schema")]
    #[test]
    fn each_keyword_is_checked_where_it_is() {
        let e = check_output_schema(&json!({"anyOf": [{"type": "string"}, {"required": "a"}]}))
            .unwrap_err();
        assert_eq!(
            e.path,
            [
                SchemaStep::Key("anyOf".into()),
                SchemaStep::Index(1),
                SchemaStep::Key("required".into())
            ]
        );
        assert_eq!(e.message, "\"a\" is not of type \"array\"");
        assert!(check_output_schema(&json!("object")).is_err());
        assert!(check_output_schema(&json!({"type": ["string", "null"]})).is_ok());
        let e = check_output_schema(&json!({"items": {"minItems": -1}})).unwrap_err();
        assert_eq!(
            e.path,
            [
                SchemaStep::Key("items".into()),
                SchemaStep::Key("minItems".into())
            ]
        );
        assert!(check_output_schema(&json!({"x-anything": [1, 2]})).is_ok());
        let e = check_output_schema(&json!({"$schema": "https://example.com/s"})).unwrap_err();
        assert_eq!(e.path, [SchemaStep::Key("$schema".into())]);
        assert!(
            check_output_schema(
                &json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})
            )
            .is_ok()
        );
    }

    #[test]
    fn a_pointer_into_a_mapping_keeps_numeric_keys() {
        let v = json!({"properties": {"1": {"anyOf": [{}, {"type": 3}]}}});
        assert_eq!(
            pointer_steps(&v, "/properties/1/anyOf/1/type"),
            [
                SchemaStep::Key("properties".into()),
                SchemaStep::Key("1".into()),
                SchemaStep::Key("anyOf".into()),
                SchemaStep::Index(1),
                SchemaStep::Key("type".into())
            ]
        );
        assert_eq!(pointer_steps(&v, ""), []);
        let steps = pointer_steps(&json!({"tasks": [{}, {"days": 1}]}), "/tasks/1/days");
        assert_eq!(steps_text(&steps), "tasks[1].days");
        assert_eq!(
            pointer_steps(&json!({"a/b": 1}), "/a~1b"),
            [SchemaStep::Key("a/b".into())]
        );
    }
}
