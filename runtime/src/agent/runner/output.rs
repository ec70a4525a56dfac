//! Typed final output: [`Runner::run_typed`] asks the model for a JSON
//! value of `T`'s schema (natively, or through the final-answer tool), checks
//! the answer, and on a mismatch asks again with the error, at most
//! [`RunSettings::output_retries`](super::RunSettings::output_retries) times.

use std::sync::Arc;
use std::time::Instant;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::step::AfterModel;
use super::{RunError, RunOutput, RunStatus, RunStream, Runner, TraceEvent};
use crate::agent::decl::Agent;
use crate::agent::journal::Journal;
use crate::agent::lifecycle::LifecycleHooks;
use crate::model::{Message, ModelResponse, OutputMode, OutputSpec};
use hookwire_chain::call::ToolResult;
use hookwire_chain::tool::ToolDefinition;

/// Checks an answer: `Err` with what is wrong.
type Validate = Arc<dyn Fn(&Value) -> Result<(), String> + Send + Sync>;

/// A run's output schema and how its answers are checked.
pub(crate) struct OutputCheck {
    /// The schema, its mode set for the run's model.
    pub(crate) spec: OutputSpec,
    validate: Validate,
}

impl OutputCheck {
    /// Answers must deserialize into `T`.
    fn of_type<T: DeserializeOwned + JsonSchema>() -> Self {
        Self {
            spec: OutputSpec::for_type::<T>(),
            validate: Arc::new(|value| deserialize::<T>(value).map(drop)),
        }
    }

    /// Answers must follow `spec`'s schema (checked with the
    /// `output-schema` feature; without it any JSON answer is taken here,
    /// and [`Runner::run_output`] / [`Runner::run_typed`] check it as their
    /// type).
    fn of_schema(spec: OutputSpec) -> Self {
        #[cfg(feature = "output-schema")]
        let validate: Validate = {
            // The schema checked is the wrapped one: check the answer
            // inside it.
            let schema = if spec.wrapped {
                &spec.schema["properties"]["response"]
            } else {
                &spec.schema
            };
            let schema = crate::output_schema::OutputSchema::new(schema);
            Arc::new(move |value| schema.check(value))
        };
        #[cfg(not(feature = "output-schema"))]
        let validate: Validate = Arc::new(|_| Ok(()));
        Self { spec, validate }
    }
}

/// `T` from a JSON value; the error names where it went wrong
/// (`at `tasks[1].days`: invalid type: string "two", expected u32`).
fn deserialize<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.into_inner().to_string()
        } else {
            format!("at `{path}`: {}", e.into_inner())
        }
    })
}

/// The typed-output state of a session.
#[derive(Default)]
pub(crate) struct Typed {
    /// The check the next run takes (set by the typed entry points).
    next: Option<OutputCheck>,
    /// The current run's check (kept while it is paused, for `resume`).
    pub(crate) current: Option<Arc<OutputCheck>>,
    /// The answers that did not match so far in the current run.
    retries: usize,
    /// The current run's checked answer, until the run ends.
    pub(crate) value: Option<Value>,
}

impl Typed {
    /// Whether a typed entry point set the next run's check.
    #[inline]
    pub(crate) fn has_next(&self) -> bool {
        self.next.is_some()
    }

    /// Drops the check set for a run that did not start.
    #[inline]
    pub(crate) fn clear_next(&mut self) {
        self.next = None;
    }

    /// A run without output schema.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.current = None;
        self.value = None;
    }

    /// Starts a run: the check set for it, else the agent's output schema,
    /// asked natively when the model can; the final-answer tool named so
    /// that no tool of the agent has the name.
    pub(crate) fn start(
        &mut self,
        configured: Option<&OutputSpec>,
        native: bool,
        tools: &[ToolDefinition],
    ) {
        let check = self
            .next
            .take()
            .or_else(|| configured.cloned().map(OutputCheck::of_schema));
        self.retries = 0;
        self.value = None;
        self.current = check.map(|mut check| {
            check.spec.mode = if native {
                OutputMode::Native
            } else {
                OutputMode::Tool
            };
            while tools.iter().any(|t| t.name == check.spec.tool) {
                check.spec.tool.push('_');
            }
            Arc::new(check)
        });
    }
}

/// A typed run's answer: the value and the run's output (its trace, usage,
/// steps; `output.text` is the value's JSON).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TypedOutput<T> {
    /// The answer.
    pub value: T,
    /// The run's output.
    pub output: RunOutput,
}

impl<T: DeserializeOwned> TryFrom<Box<RunOutput>> for TypedOutput<T> {
    type Error = RunError;

    /// [`TryFrom<RunOutput>`](#impl-TryFrom<RunOutput>-for-TypedOutput<T>)
    /// for the boxed output a stream's
    /// [`EventKind::Done`](super::EventKind::Done) carries.
    fn try_from(output: Box<RunOutput>) -> Result<Self, RunError> {
        Self::try_from(*output)
    }
}

impl<T: DeserializeOwned> TryFrom<RunOutput> for TypedOutput<T> {
    type Error = RunError;

    /// The typed answer of a run that completed with a structured answer
    /// ([`RunOutput::structured`]); [`RunError::Unfinished`] for a run that
    /// paused or stopped.
    fn try_from(output: RunOutput) -> Result<Self, RunError> {
        if output.status != RunStatus::Completed {
            return Err(RunError::Unfinished(Box::new(output)));
        }
        let parsed = match &output.structured {
            Some(value) => deserialize::<T>(value),
            None => Err("the run was not asked for typed output".to_owned()),
        };
        match parsed {
            Ok(value) => Ok(Self { value, output }),
            Err(error) => Err(RunError::OutputInvalid {
                name: std::any::type_name::<T>().to_owned(),
                retries: 0,
                error,
            }),
        }
    }
}

/// An agent whose final answer has a Rust type (`#[agent(output = T)]`, a
/// card's `output_type:`): [`Runner::run_output`] returns it.
pub trait TypedAgent: Agent {
    /// The answer's type.
    type Output: DeserializeOwned + JsonSchema;

    /// The output spec of [`Output`](Self::Output), for the agent's
    /// [`AgentConfig::output`](crate::agent::AgentConfig::output).
    fn output_spec() -> OutputSpec {
        OutputSpec::for_type::<Self::Output>()
    }
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Sets how often an answer that does not match the output schema is
    /// asked for again (see [`RunSettings::output_retries`](super::RunSettings::output_retries)).
    pub fn with_output_retries(mut self, retries: usize) -> Self {
        self.settings.output_retries = retries;
        self
    }

    /// Runs one user message, as [`run`](Self::run) does, asking the model
    /// for a final answer of `T`'s JSON Schema, and returns it as `T` with
    /// the run's output.
    ///
    /// A model with native structured output
    /// ([`Model::native_output`](crate::model::Model::native_output)) is
    /// asked for the schema; any other is offered a final-answer tool
    /// ([`FINAL_RESULT_TOOL`](crate::model::FINAL_RESULT_TOOL)) whose
    /// arguments are the answer. An answer that does not deserialize into
    /// `T` is sent back with the error (as the tool's error result, or a
    /// user message) and asked for again, at most
    /// [`output_retries`](super::RunSettings::output_retries) times (each a
    /// [`TraceEvent::OutputRetry`]); then the run fails with
    /// [`RunError::OutputInvalid`]. A run that pauses or stops gives
    /// [`RunError::Unfinished`] with its output
    /// ([`resume_typed`](Self::resume_typed) resumes it).
    pub async fn run_typed<T: DeserializeOwned + JsonSchema>(
        &mut self,
        prompt: impl Into<String>,
    ) -> Result<TypedOutput<T>, RunError> {
        self.conv.typed.next = Some(OutputCheck::of_type::<T>());
        let out = self.run_inner(prompt.into(), None, None).await;
        self.conv.typed.next = None;
        TypedOutput::try_from(out?)
    }

    /// Resumes a paused [`run_typed`](Self::run_typed) run (once its
    /// waiting calls are decided) and returns its typed answer.
    pub async fn resume_typed<T: DeserializeOwned>(&mut self) -> Result<TypedOutput<T>, RunError> {
        TypedOutput::try_from(self.resume().await?)
    }

    /// [`run_typed`](Self::run_typed) as a stream of events
    /// ([`stream`](Self::stream)): each retry is a
    /// [`TraceEvent::OutputRetry`] event, and the last event,
    /// [`EventKind::Done`](super::EventKind::Done), has the checked value
    /// in [`RunOutput::structured`] (`TypedOutput::try_from(output)` makes
    /// it a `T`).
    pub fn stream_typed<T: DeserializeOwned + JsonSchema>(
        &mut self,
        prompt: impl Into<String>,
    ) -> RunStream<'_>
    where
        H: 'static,
    {
        self.conv.typed.next = Some(OutputCheck::of_type::<T>());
        self.stream(prompt)
    }

    /// The tools of a step, with the final-answer tool when the run asks
    /// for typed output without native support.
    pub(super) fn with_output_tool<'d>(
        &self,
        offered: std::borrow::Cow<'d, [ToolDefinition]>,
    ) -> std::borrow::Cow<'d, [ToolDefinition]> {
        match &self.conv.typed.current {
            Some(check) if !check.spec.is_native() => {
                let mut tools = offered.into_owned();
                tools.push(check.spec.tool_definition());
                std::borrow::Cow::Owned(tools)
            }
            _ => offered,
        }
    }

    /// Checks the model's answer of a typed run: `None` when it is not
    /// one (it calls other tools, or the run is not typed); else the
    /// final answer (checked), or another try with the error, or the
    /// failure after the last try.
    pub(super) async fn typed_answer(
        &mut self,
        step: usize,
        response: &ModelResponse,
        started: Instant,
        journal: Option<&dyn Journal>,
    ) -> Option<AfterModel> {
        let check = self.conv.typed.current.clone()?;
        let spec = &check.spec;
        let final_call = response
            .tool_calls
            .iter()
            .position(|c| *c.name == *spec.tool);
        let answer = match final_call {
            Some(i) => response.tool_calls[i]
                .arguments
                .to_value()
                .map_err(|e| format!("the arguments are not a JSON object: {e}")),
            None if response.tool_calls.is_empty() => crate::model::json_in_text(&response.text)
                .map_err(|e| format!("the answer is not JSON: {e}")),
            None => return None,
        };
        let verdict = answer.and_then(|value| {
            let value = spec.unwrap(value);
            (check.validate)(&value).map(|()| value)
        });
        if let Some(i) = final_call {
            // Every call gets a result: the final answer's says whether it
            // was taken; the others did not run.
            let results = response.tool_calls.iter().enumerate().map(|(j, call)| {
                let result = match (&verdict, j == i) {
                    (Ok(_), true) => ToolResult::text("Final answer taken."),
                    (Err(e), true) => ToolResult::error(format!(
                        "the answer does not match the schema: {e}. Call `{}` again with a corrected answer.",
                        spec.tool
                    )),
                    (_, false) => ToolResult::error(format!(
                        "not run: `{}` was called in the same turn",
                        spec.tool
                    )),
                };
                Message::tool(call.id.clone(), call.name.clone(), result)
            });
            let history = std::sync::Arc::make_mut(&mut self.conv.history);
            history.push(Message::assistant_calls(
                response.text.clone(),
                response.tool_calls.clone(),
            ));
            history.extend(results);
        }
        let error = match verdict {
            Ok(value) => {
                let text = value.to_string();
                self.conv.typed.value = Some(value);
                let answer = ModelResponse::text(text).with_usage(response.usage);
                return Some(
                    self.final_answer(step, answer, started, journal, final_call.is_none())
                        .await,
                );
            }
            Err(error) => error,
        };
        self.conv.typed.retries += 1;
        let attempt = self.conv.typed.retries;
        self.record(TraceEvent::OutputRetry {
            step,
            attempt,
            error: error.clone(),
        });
        if attempt > self.settings.output_retries {
            let failed = RunError::OutputInvalid {
                name: spec.name.clone(),
                retries: self.settings.output_retries,
                error,
            };
            return Some(AfterModel::Ended(self.fail(failed).await));
        }
        if final_call.is_none() {
            let how = match spec.mode {
                OutputMode::Native => "with the JSON value only".to_owned(),
                _ => format!("by calling `{}`", spec.tool),
            };
            let history = std::sync::Arc::make_mut(&mut self.conv.history);
            history.push(Message::assistant(response.text.clone()));
            history.push(Message::user(format!(
                "Your answer does not match the output schema `{}`: {error}. Answer again {how}.",
                spec.name
            )));
        }
        Some(AfterModel::Again)
    }
}

impl<A: TypedAgent, H: LifecycleHooks> Runner<A, H> {
    /// [`run_typed`](Self::run_typed) with the agent's output type: the
    /// natural call for an agent declared with `#[agent(output = T)]` or a
    /// card's `output_type:`.
    pub async fn run_output(
        &mut self,
        prompt: impl Into<String>,
    ) -> Result<TypedOutput<A::Output>, RunError> {
        self.run_typed::<A::Output>(prompt).await
    }
}

#[cfg(all(test, feature = "output-schema"))]
mod tests {
    use serde_json::json;

    use crate::model::OutputSpec;

    #[test]
    fn a_schema_check_names_where_the_answer_is_wrong() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "tasks": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"days": {"type": "integer", "minimum": 1}},
                    "required": ["days"],
                }},
                "kind": {"enum": ["a", "b"]},
            },
            "required": ["name"],
            "additionalProperties": false,
        });
        let check = super::OutputCheck::of_schema(OutputSpec::new("plan", schema));
        let check = |v: serde_json::Value| (check.validate)(&v);
        assert_eq!(
            check(json!({"name": "x", "tasks": [{"days": 2}], "kind": "a"})),
            Ok(())
        );
        assert_eq!(
            check(json!({})),
            Err(r#""name" is a required property"#.to_owned())
        );
        assert_eq!(
            check(json!({"name": "x", "tasks": [{"days": 2}, {"days": "3"}]})),
            Err(r#"at `tasks[1].days`: "3" is not of type "integer""#.to_owned())
        );
        assert_eq!(
            check(json!({"name": "x", "tasks": [{"days": 0}]})),
            Err("at `tasks[0].days`: 0 is less than the minimum of 1".to_owned())
        );
        assert_eq!(
            check(json!({"name": "x", "extra": 1})),
            Err("Additional properties are not allowed ('extra' was unexpected)".to_owned())
        );
        assert_eq!(
            check(json!({"name": "x", "kind": "c"})),
            Err(r#"at `kind`: "c" is not one of "a" or "b""#.to_owned())
        );
    }

    #[test]
    fn a_wrapped_schema_checks_the_answer_inside_it() {
        let spec = OutputSpec::new("n", json!({"type": "array", "items": {"type": "integer"}}));
        assert!(spec.wrapped);
        let check = super::OutputCheck::of_schema(spec);
        assert_eq!((check.validate)(&json!([1, 2])), Ok(()));
        assert_eq!(
            (check.validate)(&json!([1, "2"])),
            Err(r#"at `[1]`: "2" is not of type "integer""#.to_owned())
        );
    }

    #[test]
    fn an_invalid_schema_fails_each_check_saying_so() {
        let check = super::OutputCheck::of_schema(OutputSpec::new(
            "bad",
            json!({"type": "object", "properties": {"a": {"type": "int"}}}),
        ));
        let e = (check.validate)(&json!({"a": 1})).unwrap_err();
        assert!(
            e.starts_with("the output schema is not a valid JSON Schema (at `properties.a.type`)"),
            "{e}"
        );
    }
}
