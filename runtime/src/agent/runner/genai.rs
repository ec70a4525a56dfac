//! The OpenTelemetry GenAI names of the loop's spans (feature `otel`; see
//! [`crate::otel`]): the run's span is `invoke_agent {agent}`, each model
//! call a `chat {model}` span, each tool call `execute_tool {tool}`.
//!
//! Without the feature every value here is [`Empty`]: the spans keep only
//! their own fields, and nothing is computed for the others (a span's
//! values are only evaluated when a subscriber takes the span, and then
//! these are constants).

#[cfg(not(feature = "otel"))]
use tracing::field::Empty;

/// A field's value with the feature: `value()`.
#[cfg(feature = "otel")]
pub(super) fn on<T>(value: impl FnOnce() -> T) -> T {
    value()
}

/// A field's value without the feature: none.
#[cfg(not(feature = "otel"))]
pub(super) fn on<T>(_: impl FnOnce() -> T) -> Empty {
    Empty
}

/// The model's name without its provider prefix (`gpt-4o-mini` of
/// `openai:gpt-4o-mini`): `gen_ai.request.model`.
pub(super) fn request_model(model: &dyn crate::model::Model) -> &str {
    let name = model.name();
    name.split_once(':').map_or(name, |(_, model)| model)
}

#[cfg(feature = "otel")]
mod names {
    pub(in crate::agent::runner) const INTERNAL: &str = "internal";
    pub(in crate::agent::runner) const INVOKE_AGENT: &str = "invoke_agent";
    pub(in crate::agent::runner) const EXECUTE_TOOL: &str = "execute_tool";
    /// Every tool the loop runs is one the model asked for and the
    /// application (this process) runs: a `function` in the conventions'
    /// words.
    pub(in crate::agent::runner) const FUNCTION: &str = "function";
}

#[cfg(not(feature = "otel"))]
mod names {
    use tracing::field::Empty;
    pub(in crate::agent::runner) const INTERNAL: Empty = Empty;
    pub(in crate::agent::runner) const INVOKE_AGENT: Empty = Empty;
    pub(in crate::agent::runner) const EXECUTE_TOOL: Empty = Empty;
    pub(in crate::agent::runner) const FUNCTION: Empty = Empty;
}

pub(super) use names::*;

#[cfg(feature = "otel")]
pub(super) use on::*;

#[cfg(feature = "otel")]
mod on {
    use serde_json::{Value, json};
    use tracing::field::Empty;

    use crate::agent::RunError;
    use crate::error::ToolError;
    use crate::model::{Message, Model, ModelError, ModelRequest, ModelResponse, Usage};
    use crate::otel::CaptureContent;
    use crate::scope::CallScope;
    use hookwire_chain::call::{Outcome, ToolCall, ToolResult};

    /// Whether the session records contents (prompts, answers, tool
    /// arguments and results) on its spans: only when it was asked to
    /// ([`CaptureContent`]).
    pub(in crate::agent::runner) fn content(scope: &CallScope) -> bool {
        scope.session().get::<CaptureContent>().is_some()
    }

    /// A content attribute as recorded: at most
    /// [`SPAN_CONTENT_LIMIT`](crate::outside::SPAN_CONTENT_LIMIT) bytes,
    /// cut with a marker, control and bidi characters escaped (a cut
    /// JSON text is no longer JSON: the marker says so).
    fn bounded(text: &str) -> String {
        crate::outside::clean(text, crate::outside::SPAN_CONTENT_LIMIT)
    }

    /// `error.type` of a model error: the HTTP status, or the error's kind
    /// (`transport`, `invalid_response`, `script_exhausted`, ...).
    fn model_error_type(error: &ModelError) -> String {
        if let ModelError::Http { status, .. } = error {
            return status.to_string();
        }
        // The serde form is tagged by the kind, in snake case.
        serde_json::to_value(error)
            .ok()
            .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| "_OTHER".to_owned())
    }

    /// `error.type` of a failed run.
    fn run_error_type(error: &RunError) -> String {
        match error {
            RunError::Model(e) => model_error_type(e),
            RunError::StepLimit(_) => "step_limit".into(),
            RunError::UsageLimit { .. } => "usage_limit".into(),
            RunError::NotPaused => "not_paused".into(),
            RunError::Paused => "paused".into(),
            RunError::StillPending(_) => "still_pending".into(),
            RunError::Journal(_) => "journal".into(),
            RunError::Setup(_) => "setup".into(),
            RunError::ToolsRefused(_) => "tools_refused".into(),
            RunError::OutputInvalid { .. } => "output_invalid".into(),
            RunError::Unfinished(_) => "unfinished".into(),
        }
    }

    /// Records the tokens, as `i64`s: tracing-opentelemetry exports a
    /// `u64` as text, but the conventions' counts are integers.
    fn record_usage(span: &tracing::Span, usage: Usage) {
        let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        span.record("gen_ai.usage.input_tokens", int(usage.input_tokens));
        span.record("gen_ai.usage.output_tokens", int(usage.output_tokens));
    }

    fn record_error(span: &tracing::Span, error_type: &str) {
        span.record("error.type", error_type);
        span.record("otel.status_code", "error");
    }

    /// Records how the run ended on its `invoke_agent` span: its tokens
    /// (its own and its children's), or the error.
    pub(in crate::agent::runner) fn run_end(
        span: &tracing::Span,
        out: &Result<crate::agent::RunOutput, RunError>,
    ) {
        if span.is_disabled() {
            return;
        }
        match out {
            Ok(out) => record_usage(span, out.usage),
            Err(e) => record_error(span, &run_error_type(e)),
        }
    }

    /// The `chat {model}` span of the model call of `request`, a child of
    /// `parent` (with its input under [`CaptureContent`]); the call runs in
    /// it, then
    /// [`chat_end`] records its answer. (Not a wrapping future: that would
    /// hold the call's future twice, and every run would copy it.)
    pub(in crate::agent::runner) fn chat_span(
        parent: &tracing::Span,
        model: &dyn Model,
        scope: &CallScope,
        request: ModelRequest<'_>,
    ) -> tracing::Span {
        let request_model = super::request_model(model);
        let span = tracing::info_span!(
            parent: parent,
            "hookwire.model",
            otel.name = format!("chat {request_model}"),
            otel.kind = "client",
            otel.status_code = Empty,
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = model.provider(),
            gen_ai.request.model = request_model,
            gen_ai.conversation.id = scope.correlation_id(),
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            error.type = Empty,
            gen_ai.system_instructions = Empty,
            gen_ai.input.messages = Empty,
            gen_ai.output.messages = Empty,
        );
        if !span.is_disabled() && content(scope) {
            if !request.system.is_empty() {
                let system = json!([{"type": "text", "content": request.system}]);
                span.record("gen_ai.system_instructions", bounded(&system.to_string()));
            }
            let input: Vec<Value> = request.messages.iter().map(message).collect();
            span.record(
                "gen_ai.input.messages",
                bounded(&Value::Array(input).to_string()),
            );
        }
        span
    }

    /// Records the answer of a [`chat_span`]'s call: its tokens (and
    /// under [`CaptureContent`] the answer), or the error.
    pub(in crate::agent::runner) fn chat_end(
        span: &tracing::Span,
        scope: &CallScope,
        out: &Result<ModelResponse, ModelError>,
    ) {
        if span.is_disabled() {
            return;
        }
        match out {
            Ok(response) => {
                record_usage(span, response.usage);
                if content(scope) {
                    let finish = if response.tool_calls.is_empty() {
                        "stop"
                    } else {
                        "tool_call"
                    };
                    let output = json!([{
                        "role": "assistant",
                        "parts": parts(&response.text, &response.tool_calls),
                        "finish_reason": finish,
                    }]);
                    span.record("gen_ai.output.messages", bounded(&output.to_string()));
                }
            }
            Err(e) => record_error(span, &model_error_type(e)),
        }
    }

    /// A message in the conventions' input form (`role`, `parts`).
    fn message(message: &Message) -> Value {
        match message {
            Message::User { content } => {
                json!({"role": "user", "parts": [{"type": "text", "content": content}]})
            }
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => json!({"role": "assistant", "parts": parts(content, tool_calls)}),
            Message::Tool {
                tool_call_id,
                result,
                ..
            } => json!({"role": "tool", "parts": [{
                "type": "tool_call_response",
                "id": tool_call_id,
                "response": result_value(result),
            }]}),
        }
    }

    /// A model turn's parts: its text, then its tool calls.
    fn parts(text: &str, calls: &[ToolCall]) -> Vec<Value> {
        let text = (!text.is_empty()).then(|| json!({"type": "text", "content": text}));
        text.into_iter()
            .chain(calls.iter().map(|c| {
                json!({
                    "type": "tool_call",
                    "id": c.id,
                    "name": c.name,
                    "arguments": serde_json::to_value(&c.arguments).unwrap_or(Value::Null),
                })
            }))
            .collect()
    }

    /// A tool result as a value: its structured content, else its text.
    fn result_value(result: &ToolResult) -> Value {
        match &result.structured_content {
            Some(value) => (**value).clone(),
            None => Value::String(result.text_content()),
        }
    }

    /// Records how a tool call ended on its `execute_tool` span: its
    /// decision (`hookwire.decision`, `hookwire.hook`), and for a call
    /// that did not succeed its `error.type` (the [`ToolError`] kind:
    /// `denied`, `stopped`, `timed_out`, `invalid_arguments`,
    /// `unknown_tool`, `hook_failed`, `tool_failed`, `cancelled`; or
    /// `tool_error` for an error result). With [`CaptureContent`], the
    /// arguments as the model sent them and the result.
    pub(in crate::agent::runner) fn call_end(
        span: &tracing::Span,
        scope: &CallScope,
        decision: &str,
        hook: Option<&str>,
        outcome: &Outcome,
        sent: &hookwire_chain::call::ToolArgs,
    ) {
        if span.is_disabled() {
            return;
        }
        span.record("hookwire.decision", decision);
        if let Some(hook) = hook {
            span.record("hookwire.hook", hook);
        }
        let error = match outcome {
            Ok(result) if result.is_error => Some("tool_error"),
            Ok(_) => None,
            Err(e) => Some(ToolError::kind(e)),
        };
        // A call waiting for approval has not ended in an error.
        if decision != "pending"
            && let Some(error) = error
        {
            record_error(span, error);
        }
        if content(scope) {
            if let Ok(args) = serde_json::to_string(sent) {
                span.record("gen_ai.tool.call.arguments", bounded(&args));
            }
            match outcome {
                Ok(result) if !result.is_error => {
                    span.record(
                        "gen_ai.tool.call.result",
                        bounded(&result_value(result).to_string()),
                    );
                }
                Ok(result) => {
                    span.record("otel.status_description", bounded(&result.text_content()));
                }
                Err(e) => {
                    span.record("otel.status_description", bounded(&e.to_string()));
                }
            }
        }
    }
}
