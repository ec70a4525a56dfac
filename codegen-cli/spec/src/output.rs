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
    if schema == &Value::Bool(false) {
        return Err(SchemaError {
            path: Vec::new(),
            message: "the output schema `false` accepts no answer: every run would fail; describe the answer, for example `{type: object, properties: {..}}`".to_owned(),
        });
    }
    if let Err(e) = jsonschema::meta::validate(schema) {
        let path = pointer_steps(schema, e.instance_path().as_str());
        let message = match (path.last(), e.instance().as_ref()) {
            (Some(SchemaStep::Key(k)), Value::String(t)) if k == "type" => {
                format!("unknown JSON Schema type `{t}`: expected one of {TYPES}")
            }
            _ => e.to_string(),
        };
        return Err(SchemaError { path, message });
    }
    compile_output_schema(schema).map(|_| ())
}

/// Compiles an output schema as the runtime checks answers with it: no
/// file or network is read, so a `$ref` must point inside the schema, and
/// every `pattern` must be a regular expression the checker accepts. The
/// runtime (`hookwire`'s `output-schema` feature) and `cardgen check`
/// compile with this one function.
///
/// ```
/// use hookwire_spec::compile_output_schema;
/// use serde_json::json;
///
/// assert!(compile_output_schema(&json!({"$defs": {"d": {"type": "integer"}}, "$ref": "#/$defs/d"})).is_ok());
/// let e = compile_output_schema(&json!({"properties": {"a": {"$ref": "#/$defs/none"}}})).unwrap_err();
/// assert!(e.message.contains("#/$defs/none"), "{}", e.message);
/// ```
#[cfg(feature = "output-schema")]
pub fn compile_output_schema(schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
    if let Some(e) = bad_ref(schema, schema, &mut Vec::new()) {
        return Err(e);
    }
    jsonschema::validator_for(schema).map_err(|e| {
        // A mistake in the schema is an instance of the meta-schema: its
        // instance path is its place in the schema.
        // The compiler's error is on the schema object that holds the
        // mistake; the mistake's own place is its key whose value is the
        // one refused (`pattern` for a pattern that is no regex).
        let mut path = pointer_steps(schema, e.instance_path().as_str());
        if let Some(Value::Object(map)) = schema.pointer(e.instance_path().as_str())
            && let Some((key, _)) = map
                .iter()
                .find(|(_, v)| !v.is_object() && *v == e.instance().as_ref())
        {
            path.push(SchemaStep::Key(key.clone()));
        }
        SchemaError {
            path,
            message: e.to_string(),
        }
    })
}

/// The first `$ref` (or `$dynamicRef`) of `value` (a part of `root`) the
/// runtime cannot follow: one that points outside the schema, or a
/// `#/..` pointer to nothing in it.
#[cfg(feature = "output-schema")]
fn bad_ref(root: &Value, value: &Value, at: &mut Vec<SchemaStep>) -> Option<SchemaError> {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if matches!(key.as_str(), "$ref" | "$dynamicRef")
                    && let Value::String(r) = v
                    && let Some(message) = ref_mistake(root, r)
                {
                    let mut path = at.clone();
                    path.push(SchemaStep::Key(key.clone()));
                    return Some(SchemaError { path, message });
                }
                // `const`, `enum`, `default` and `examples` hold data, not schemas.
                if matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    continue;
                }
                at.push(SchemaStep::Key(key.clone()));
                let found = bad_ref(root, v, at);
                at.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        Value::Array(items) => items.iter().enumerate().find_map(|(i, v)| {
            at.push(SchemaStep::Index(i));
            let found = bad_ref(root, v, at);
            at.pop();
            found
        }),
        _ => None,
    }
}

/// Why the runtime cannot follow the reference `r` in `root`, if it cannot.
#[cfg(feature = "output-schema")]
fn ref_mistake(root: &Value, r: &str) -> Option<String> {
    let Some(fragment) = r.strip_prefix('#') else {
        return Some(format!(
            "`$ref` \"{r}\" points outside the schema: the output schema is read on its own (no file or network), so put the definition under `$defs` and write `\"#/$defs/<name>\"`"
        ));
    };
    if !(fragment.is_empty() || fragment.starts_with('/')) {
        return None; // an anchor (`#name`): the compiler checks it
    }
    let decoded = percent_decode(fragment);
    root.pointer(&decoded).is_none().then(|| {
        format!("`$ref` \"{r}\" points to nothing in the schema: define it there (under `$defs`) or fix the path")
    })
}

/// `%xx` escapes of a URI fragment decoded (a pointer may escape
/// characters so).
#[cfg(feature = "output-schema")]
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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

    /// What the runtime could not compile, or compiles into a check no
    /// answer passes, is refused with its place.
    #[cfg(feature = "output-schema")]
    #[test]
    fn a_schema_the_runtime_cannot_use_is_refused() {
        let remote = json!({"properties": {"a": {"$ref": "https://example.com/s.json"}}});
        let e = check_output_schema(&remote).unwrap_err();
        assert_eq!(
            e.path,
            [
                SchemaStep::Key("properties".into()),
                SchemaStep::Key("a".into()),
                SchemaStep::Key("$ref".into())
            ]
        );
        assert!(
            e.message.contains("points outside the schema"),
            "{}",
            e.message
        );
        let dangling = json!({"items": {"$ref": "#/$defs/nope"}});
        let e = check_output_schema(&dangling).unwrap_err();
        assert_eq!(
            e.path,
            [
                SchemaStep::Key("items".into()),
                SchemaStep::Key("$ref".into())
            ]
        );
        assert!(e.message.contains("points to nothing"), "{}", e.message);
        let defined = json!({"$defs": {"a b": {}}, "items": {"$ref": "#/$defs/a%20b"}});
        assert!(check_output_schema(&defined).is_ok());
        let pattern = json!({"properties": {"a": {"type": "string", "pattern": "(["}}});
        let e = check_output_schema(&pattern).unwrap_err();
        assert_eq!(
            e.path,
            [
                SchemaStep::Key("properties".into()),
                SchemaStep::Key("a".into()),
                SchemaStep::Key("pattern".into())
            ]
        );
        assert!(check_output_schema(&json!(false)).is_err());
        assert!(check_output_schema(&json!(true)).is_ok());
        // A `$ref` inside data is data.
        assert!(check_output_schema(&json!({"const": {"$ref": "https://x"}})).is_ok());
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
