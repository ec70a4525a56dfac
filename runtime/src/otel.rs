//! OpenTelemetry (feature `otel`): the loop's `tracing` spans follow the
//! OpenTelemetry semantic conventions for generative AI, version
//! [`SEMCONV_VERSION`] (the last release of the GenAI conventions in
//! the main semantic-conventions repository; `gen_ai.provider.name`, not
//! the older `gen_ai.system`), and [`layer`] exports them through
//! `tracing-opentelemetry` to any OpenTelemetry tracer provider.
//!
//! | span | kind | attributes |
//! |---|---|---|
//! | `invoke_agent {agent}`: a run | internal | `gen_ai.operation.name` = `invoke_agent`, `gen_ai.agent.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.conversation.id` (the correlation id), `gen_ai.usage.input_tokens` / `output_tokens` (the run's, its child agents' included) |
//! | `hookwire.step`: a step of it | internal | `agent`, `step` |
//! | `chat {model}`: a model call, retries included | client | `gen_ai.operation.name` = `chat`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.conversation.id`, `gen_ai.usage.input_tokens` / `output_tokens` |
//! | `execute_tool {tool}`: a tool call | internal | `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` = `function`, `hookwire.decision` (`allowed`, `denied`, `stopped`, `error`, `pending`), `hookwire.hook` (the hook that decided) |
//!
//! A child agent's `invoke_agent` span is a child of its parent's
//! `execute_tool agent__<child>` span. A span that ended in an error has
//! the status `Error` and `error.type`: for a run, the model error's HTTP
//! status or kind (`transport`, `invalid_response`, ...) or the run's
//! (`step_limit`, `usage_limit`, `journal`, `output_invalid`, `unfinished`); for a tool call, the
//! [`ToolError`](crate::ToolError) kind (`denied`, `stopped`, `timed_out`,
//! `invalid_arguments`, `unknown_tool`, `hook_failed`, `tool_failed`,
//! `cancelled`), or `tool_error` for a result the tool marked as an
//! error. The loop's audit events (`hookwire::audit`: each call's
//! decision, approvals) become events of these spans.
//!
//! Contents are not recorded unless the session asks for them with
//! [`CaptureContent`], as the conventions make them opt-in (they hold
//! prompts and personal data): then the `chat` spans get
//! `gen_ai.system_instructions`, `gen_ai.input.messages` and
//! `gen_ai.output.messages`, and the `execute_tool` spans
//! `gen_ai.tool.call.arguments` (as the model sent them),
//! `gen_ai.tool.call.result` and, for a failed call, the error's message
//! as the status description; all as JSON text, each cut at
//! [`SPAN_CONTENT_LIMIT`](crate::outside::SPAN_CONTENT_LIMIT) bytes with a
//! marker, control and bidi characters escaped ([`outside`](crate::outside)).
//!
//! Without the feature the spans keep only their own fields, and nothing
//! is computed or allocated for these.
//!
//! ```
//! use hookwire::otel::{self, opentelemetry_sdk::trace::SdkTracerProvider};
//! use tracing_subscriber::layer::SubscriberExt;
//!
//! // Your exporter here (OTLP, stdout, ...): `.with_batch_exporter(exporter)`.
//! let provider = SdkTracerProvider::builder().build();
//! let subscriber = tracing_subscriber::registry().with(otel::layer(&provider));
//! let _guard = tracing::subscriber::set_default(subscriber);
//! // ... runs ...
//! provider.shutdown().ok();
//! ```

use opentelemetry::InstrumentationScope;
use opentelemetry::trace::TracerProvider;
use tracing_subscriber::registry::LookupSpan;

pub use opentelemetry;
pub use opentelemetry_sdk;
pub use tracing_opentelemetry;

/// The version of the OpenTelemetry semantic conventions the spans follow.
pub const SEMCONV_VERSION: &str = "1.41.0";

/// The schema URL of [`SEMCONV_VERSION`], on the tracer [`layer`] makes.
pub const SCHEMA_URL: &str = "https://opentelemetry.io/schemas/1.41.0";

/// A session value that turns on recording contents on the spans
/// (prompts, answers, tool arguments and results; see the [module
/// docs](self)): `Runner::new(agent, model).with_session_value(CaptureContent)`.
/// Child agents called in the session record theirs too. Off by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CaptureContent;

/// The `tracing` layer that exports the spans to `provider`'s tracer
/// (instrumentation scope `hookwire`, this crate's version,
/// [`SCHEMA_URL`]): add it to your subscriber. Its settings are
/// `tracing-opentelemetry`'s (`.with_location(false)`, ... on the result).
/// An example that installs it: the [module docs](self).
pub fn layer<S, P>(provider: &P) -> tracing_opentelemetry::OpenTelemetryLayer<S, P::Tracer>
where
    S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    P: TracerProvider,
    P::Tracer: 'static,
    <P::Tracer as opentelemetry::trace::Tracer>::Span: Send + Sync,
{
    let scope = InstrumentationScope::builder("hookwire")
        .with_version(env!("CARGO_PKG_VERSION"))
        .with_schema_url(SCHEMA_URL)
        .build();
    tracing_opentelemetry::layer().with_tracer(provider.tracer_with_scope(scope))
}
