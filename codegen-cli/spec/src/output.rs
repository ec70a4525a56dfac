//! An agent's output schema (`output_schema:` in a card,
//! `#[agent(output_schema = ..)]`): checked to be a JSON Schema, with the
//! place of the first mistake, so that each front end reports it there.

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
const TYPES: [&str; 7] = [
    "object", "array", "string", "number", "integer", "boolean", "null",
];

/// Checks that `schema` is a JSON Schema: a mapping (or `true`/`false`)
/// whose keywords have the shapes the specification gives them (`type` one
/// of the seven types or a list of them, `properties` a mapping of schemas,
/// `required` a list of names, `items` a schema, `enum` a list, `anyOf` /
/// `oneOf` / `allOf` non-empty lists of schemas, bounds numbers). Unknown
/// keywords are annotations and pass.
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
pub fn check_output_schema(schema: &Value) -> Result<(), SchemaError> {
    let mut path = Vec::new();
    check(schema, &mut path).map_err(|message| SchemaError { path, message })
}

/// Checks one schema; on error `path` leads to the mistake.
fn check(schema: &Value, path: &mut Vec<SchemaStep>) -> Result<(), String> {
    let map = match schema {
        Value::Object(map) => map,
        Value::Bool(_) => return Ok(()),
        other => {
            return Err(format!(
                "a JSON Schema is a mapping of keywords (`type: object`, ...), found {}",
                kind(other)
            ));
        }
    };
    for (key, value) in map {
        path.push(SchemaStep::Key(key.clone()));
        match key.as_str() {
            "type" => check_type(value)?,
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                let Value::Object(named) = value else {
                    return Err(format!(
                        "`{key}` is a mapping of names to schemas, found {}",
                        kind(value)
                    ));
                };
                for (name, sub) in named {
                    path.push(SchemaStep::Key(name.clone()));
                    check(sub, path)?;
                    path.pop();
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "contains"
            | "if"
            | "then"
            | "else"
            | "propertyNames"
            | "additionalItems"
            | "unevaluatedProperties" => check(value, path)?,
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                let Value::Array(subs) = value else {
                    return Err(format!(
                        "`{key}` is a list of schemas, found {}",
                        kind(value)
                    ));
                };
                if subs.is_empty() && key != "prefixItems" {
                    return Err(format!("`{key}` needs at least one schema"));
                }
                for (i, sub) in subs.iter().enumerate() {
                    path.push(SchemaStep::Index(i));
                    check(sub, path)?;
                    path.pop();
                }
            }
            "required" => {
                let names = value.as_array().filter(|a| a.iter().all(Value::is_string));
                if names.is_none() {
                    return Err(format!(
                        "`required` is a list of property names, found {}",
                        kind(value)
                    ));
                }
            }
            "enum" if !value.is_array() => {
                return Err(format!("`enum` is a list of values, found {}", kind(value)));
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf"
                if !value.is_number() =>
            {
                return Err(format!("`{key}` is a number, found {}", kind(value)));
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
            | "maxProperties"
                if !value.is_u64() =>
            {
                return Err(format!(
                    "`{key}` is a whole number of at least 0, found {value}"
                ));
            }
            "$ref" | "pattern" | "format" | "title" | "description" if !value.is_string() => {
                return Err(format!("`{key}` is a string, found {}", kind(value)));
            }
            _ => {}
        }
        path.pop();
    }
    Ok(())
}

fn check_type(value: &Value) -> Result<(), String> {
    let names: Vec<&Value> = match value {
        Value::Array(names) if !names.is_empty() => names.iter().collect(),
        Value::String(_) => vec![value],
        other => {
            return Err(format!(
                "`type` is a type name or a list of them, found {}",
                kind(other)
            ));
        }
    };
    for name in names {
        match name.as_str() {
            Some(t) if TYPES.contains(&t) => {}
            Some(t) => {
                return Err(format!(
                    "unknown JSON Schema type `{t}`: expected one of {}",
                    TYPES.join(", ")
                ));
            }
            None => return Err(format!("`type` names a type, found {}", kind(name))),
        }
    }
    Ok(())
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        assert_eq!(
            e.message,
            "`required` is a list of property names, found a string"
        );
        assert!(check_output_schema(&json!("object")).is_err());
        assert!(check_output_schema(&json!({"type": ["string", "null"]})).is_ok());
        assert!(check_output_schema(&json!({"items": {"minItems": -1}})).is_err());
        assert!(check_output_schema(&json!({"x-anything": [1, 2]})).is_ok());
    }
}
