//! Schema-only typed outputs (feature `output-schema`): an answer checked
//! against a JSON Schema through the `jsonschema` crate (the one module
//! that uses it), and the macro the generated code of an agent with an
//! `output_schema` calls, which names the feature when it is off.

#[cfg(feature = "output-schema")]
use serde_json::Value;

/// A compiled output schema.
#[cfg(feature = "output-schema")]
pub(crate) struct OutputSchema(Result<jsonschema::Validator, String>);

#[cfg(feature = "output-schema")]
impl OutputSchema {
    /// Compiles `schema` with the spec's compiler, which `cardgen check`
    /// runs on a card's schema (an invalid one fails every check, saying
    /// so).
    pub(crate) fn new(schema: &Value) -> Self {
        Self(hookwire_spec::compile_output_schema(schema).map_err(|e| {
            let at = hookwire_spec::steps_text(&e.path);
            format!(
                "the output schema is not a valid JSON Schema (at `{at}`): {}",
                e.message
            )
        }))
    }

    /// Checks `value`: the error names where it went wrong
    /// (`at `tasks[1].days`: "3" is not of type "integer"`).
    pub(crate) fn check(&self, value: &Value) -> Result<(), String> {
        let validator = self.0.as_ref().map_err(Clone::clone)?;
        let Err(e) = validator.validate(value) else {
            return Ok(());
        };
        let at = hookwire_spec::steps_text(&hookwire_spec::pointer_steps(
            value,
            e.instance_path().as_str(),
        ));
        Err(if at.is_empty() {
            e.to_string()
        } else {
            format!("at `{at}`: {e}")
        })
    }
}

/// Sets an agent's output schema, given as JSON text, on its
/// `AgentConfig` (what the generated code of an agent with an
/// `output_schema` calls).
///
/// ```
/// use hookwire::agent::Agent;
///
/// #[hookwire::agent(name = "judge", output_schema = r#"{"type": "object"}"#)]
/// struct Judge;
///
/// let spec = Judge::new().config().output.clone();
/// assert_eq!(spec.map(|s| s.name), Some("judge".to_owned()));
/// ```
#[cfg(feature = "output-schema")]
#[doc(hidden)]
#[macro_export]
macro_rules! __output_schema {
    ($config:expr, $title:expr, $schema:expr) => {
        match $crate::serde_json::from_str($schema) {
            ::core::result::Result::Ok(schema) => $config.with_output_schema($title, schema),
            ::core::result::Result::Err(_) => $config,
        }
    };
}

/// Without the `output-schema` feature: the one error, naming it.
///
/// ```compile_fail
/// #[hookwire::agent(name = "judge", output_schema = r#"{"type": "object"}"#)]
/// struct Judge;
/// ```
#[cfg(not(feature = "output-schema"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __output_schema {
    ($config:expr, $title:expr, $schema:expr) => {
        ::core::compile_error!(
            "an agent with `output_schema` needs hookwire's `output-schema` feature: in Cargo.toml, `hookwire = { version = \"0.1\", features = [\"output-schema\"] }`"
        )
    };
}
