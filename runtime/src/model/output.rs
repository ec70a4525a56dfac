//! What a run asks the model's final answer to be: a JSON value of a
//! schema ([`OutputSpec`]), answered natively (the provider's structured
//! output) or through a final-answer tool ([`FINAL_RESULT_TOOL`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use hookwire_chain::tool::ToolDefinition;

/// The name of the final-answer tool offered to a model without native
/// structured output: its arguments are the answer (renamed `final_result_`
/// ... when an agent has a tool of that name).
pub const FINAL_RESULT_TOOL: &str = "final_result";

/// How the model is asked for the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutputMode {
    /// The provider's own structured output: the answer's text is the
    /// JSON value (OpenAI `response_format`, Anthropic
    /// `output_config.format`, Gemini `responseJsonSchema`, Ollama
    /// `format`).
    Native,
    /// A final-answer tool ([`OutputSpec::tool`]) whose arguments are the
    /// answer, and a tool call required of the model where its client can
    /// ask ([`ModelRequest::output_tool`](super::ModelRequest::output_tool));
    /// a JSON text answer is accepted too.
    Tool,
}

/// The schema the model's final answer must follow
/// ([`ModelRequest::output`](super::ModelRequest::output)).
///
/// A schema whose root is not an object is wrapped as
/// `{"response": <schema>}` (tools and OpenAI's `response_format` take
/// objects only); [`unwrap`](Self::unwrap) takes the answer out.
///
/// ```
/// # use hookwire::model::OutputSpec;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Answer { city: String, days: u32 }
/// let spec = OutputSpec::for_type::<Answer>();
/// assert_eq!(spec.name, "Answer");
/// assert!(spec.strict); // every field is required: OpenAI's strict mode applies
/// assert_eq!(spec.schema["additionalProperties"], false);
/// assert_eq!(spec.tool_definition().name, "final_result");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct OutputSpec {
    /// The schema's name (letters, digits, `_` and `-`, as OpenAI needs).
    pub name: String,
    /// What the answer is, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the answer (an object schema; see
    /// [`wrapped`](Self::wrapped)).
    pub schema: Value,
    /// Whether the schema allows OpenAI's strict mode (every property
    /// required, no others): then it is asked for.
    pub strict: bool,
    /// Whether a non-object schema was wrapped as `{"response": ..}`.
    #[serde(default)]
    pub wrapped: bool,
    /// How the model is asked (set by the runner from
    /// [`Model::native_output`](super::Model::native_output)).
    pub mode: OutputMode,
    /// The final-answer tool's name ([`FINAL_RESULT_TOOL`] unless an
    /// agent's tool has it).
    pub tool: String,
}

impl OutputSpec {
    /// The spec of a JSON Schema named `name`.
    pub fn new(name: &str, schema: Value) -> Self {
        let (schema, wrapped) = match schema.get("type") {
            Some(Value::String(t)) if t == "object" => (schema, false),
            _ => (
                json!({
                    "type": "object",
                    "properties": {"response": schema},
                    "required": ["response"],
                }),
                true,
            ),
        };
        let strict = strict_allowed(&schema);
        let mut schema = schema;
        if strict {
            hookwire_chain::tool::make_strict(&mut schema);
        }
        Self {
            name: schema_name(name),
            description: None,
            schema,
            strict,
            wrapped,
            mode: OutputMode::Tool,
            tool: FINAL_RESULT_TOOL.to_owned(),
        }
    }

    /// The spec of `T`'s JSON Schema (inlined, as tools' schemas are).
    pub fn for_type<T: JsonSchema>() -> Self {
        Self::new(
            &T::schema_name(),
            hookwire_chain::tool::schema_for::<T>(false),
        )
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the mode.
    pub fn with_mode(mut self, mode: OutputMode) -> Self {
        self.mode = mode;
        self
    }

    /// Whether the model is asked natively.
    pub fn is_native(&self) -> bool {
        self.mode == OutputMode::Native
    }

    /// The final-answer tool: its parameters are the schema.
    pub fn tool_definition(&self) -> ToolDefinition {
        let description = match &self.description {
            Some(d) => format!("The final answer: {d} Call it once, with the whole answer."),
            None => "The final answer. Call it once, with the whole answer.".to_owned(),
        };
        ToolDefinition {
            name: self.tool.clone(),
            description,
            input_schema: self.schema.clone(),
            strict: self.strict,
        }
    }

    /// The answer inside a value of the schema: the `response` of a
    /// wrapped schema's object, else the value itself.
    pub fn unwrap(&self, value: Value) -> Value {
        match value {
            Value::Object(mut map) if self.wrapped && map.len() == 1 => {
                map.remove("response").unwrap_or(Value::Object(Map::new()))
            }
            value => value,
        }
    }
}

/// A schema name OpenAI accepts: `[A-Za-z0-9_-]`, at most 64 characters.
fn schema_name(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "output".to_owned()
    } else {
        name
    }
}

/// Whether OpenAI's strict mode can take `schema` as it means: every
/// object lists properties, all of them required, and allows no others
/// (a map, an optional field or a free-form object is not strict).
pub(crate) fn strict_allowed(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            let is_object = match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => map.contains_key("properties"),
            };
            if is_object {
                let Some(Value::Object(props)) = map.get("properties") else {
                    return false;
                };
                let required: Vec<&str> = match map.get("required") {
                    Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                if props.keys().any(|k| !required.contains(&k.as_str())) {
                    return false;
                }
                if !matches!(
                    map.get("additionalProperties"),
                    None | Some(Value::Bool(false))
                ) {
                    return false;
                }
            }
            map.iter().all(|(key, sub)| match key.as_str() {
                "enum" | "const" | "examples" | "default" => true,
                "properties" | "$defs" | "definitions" => match sub {
                    Value::Object(named) => named.values().all(strict_allowed),
                    _ => false,
                },
                "patternProperties" => false,
                _ => strict_allowed(sub),
            })
        }
        Value::Array(items) => items.iter().all(strict_allowed),
        _ => true,
    }
}

/// The JSON value of a text answer: the text itself, or the JSON inside
/// a Markdown code fence.
pub(crate) fn json_in_text(text: &str) -> Result<Value, serde_json::Error> {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.trim_end().strip_suffix("```"))
        .unwrap_or(trimmed);
    crate::strict_json::from_str(inner.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_only_where_every_property_is_required() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Opt {
            a: u32,
            b: Option<u32>,
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Map {
            m: std::collections::BTreeMap<String, u32>,
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct All {
            a: u32,
            inner: Vec<Inner>,
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Inner {
            x: String,
        }
        assert!(!OutputSpec::for_type::<Opt>().strict);
        assert!(!OutputSpec::for_type::<Map>().strict);
        let all = OutputSpec::for_type::<All>();
        assert!(all.strict);
        assert_eq!(
            all.schema["properties"]["inner"]["items"]["additionalProperties"],
            false
        );
    }

    #[test]
    fn a_non_object_schema_is_wrapped_and_unwrapped() {
        let spec = OutputSpec::for_type::<Vec<String>>();
        assert!(spec.wrapped);
        assert_eq!(spec.schema["required"], json!(["response"]));
        assert_eq!(spec.unwrap(json!({"response": ["a"]})), json!(["a"]));
        assert_eq!(spec.name, "Array_of_string");
    }

    #[test]
    fn json_in_a_fence_is_read() {
        assert_eq!(
            json_in_text("```json\n{\"a\": 1}\n```").unwrap(),
            json!({"a": 1})
        );
        assert_eq!(json_in_text(" {\"a\": 1} ").unwrap(), json!({"a": 1}));
        assert!(json_in_text("the answer is 1").is_err());
    }
}
