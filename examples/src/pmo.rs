//! Running the PMO orchestrator: connect its MCP server, pick a model, run
//! one request, and render the trace.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use hookwire::ToolResult;
use hookwire::agent::{
    Agent, EventKind, RunError, RunEvent, RunOutput, Runner, TraceEvent, TypedOutput,
};
use hookwire::mcp::{ConfigError, McpAgent, McpConfig, ServerSpec};
use hookwire::model::{Model, ModelError, ScriptedModel};

/// The user's request, as in fast-agent's example.
pub const PROMPT: &str = "Get project updates from the New York and London project managers \
and include the current time in New York.";

/// The orchestrator's answer as a type (`pmo --typed`): the model is asked
/// for its JSON Schema (natively, or through the final-answer tool for
/// Anthropic and the scripted model) and the answer is checked against it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct PmoSummary {
    /// One update per project asked about.
    pub updates: Vec<ProjectUpdate>,
    /// What the hooks changed or blocked, for the reader.
    pub notes: Vec<String>,
}

/// One project's update.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ProjectUpdate {
    /// `New York` or `London`.
    pub city: String,
    /// The project or topic.
    pub topic: String,
    /// Its status, in one sentence.
    pub status: String,
}

/// Which declaration of the orchestrator to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `#[hookwire::agent]` in Rust ([`crate::pmo_macro`]).
    Macro,
    /// AgentCards compiled by `cardgen` ([`crate::pmo_cards`]).
    Cards,
}

impl Form {
    /// The form's name in output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Macro => "#[agent] macro",
            Self::Cards => "AgentCards + cardgen",
        }
    }
}

/// Why the example could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PmoError {
    /// The MCP configuration is wrong.
    #[error(transparent)]
    Mcp(#[from] ConfigError),
    /// The model could not be set up.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The run failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The run's stream ended without its `Done` event.
    #[error("the run's event stream ended before the run did")]
    NoEnd,
}

/// Where `mcp-server-time` is: `$HOOKWIRE_MCP_DIR/venv/bin`, then
/// `target/mcp/venv/bin` (where `.ci/run` installs it), then `PATH`.
pub fn time_server_command() -> String {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let candidates = std::env::var_os("HOOKWIRE_MCP_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([workspace.join("target/mcp")])
        .map(|dir| dir.join("venv/bin/mcp-server-time"));
    for candidate in candidates {
        if candidate.is_file() {
            return candidate.to_string_lossy().into_owned();
        }
    }
    "mcp-server-time".to_owned()
}

/// The server configuration: `time` is the real `mcp-server-time` over stdio.
/// If it is not installed, its tool gives an error result and the run goes on.
pub fn mcp_config() -> Result<McpConfig, ConfigError> {
    McpConfig::new().with_server(
        "time",
        ServerSpec::stdio(time_server_command())
            .args(["--local-timezone", "UTC"])
            .startup_timeout(Duration::from_secs(20))
            .call_timeout(Duration::from_secs(20)),
    )
}

/// The scripted model that plays `pmo/script.yaml`: the offline default.
pub fn scripted_model() -> Result<Arc<dyn Model>, ModelError> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pmo/script.yaml");
    Ok(Arc::new(ScriptedModel::from_file(path)?))
}

/// An OpenAI-compatible model from the environment (`OPENAI_BASE_URL`,
/// `OPENAI_API_KEY`, `HOOKWIRE_MODEL`, default model `gpt-4o-mini`).
pub fn openai_model() -> Result<Arc<dyn Model>, ModelError> {
    let name = std::env::var("HOOKWIRE_MODEL")
        .ok()
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "gpt-4o-mini".to_owned());
    let spec = if name.starts_with("openai:") {
        name
    } else {
        format!("openai:{name}")
    };
    hookwire::model::from_spec(&spec, None)
}

/// Runs one form of the orchestrator on `model`.
pub async fn run(
    form: Form,
    model: Arc<dyn Model>,
    mcp: &McpConfig,
) -> Result<RunOutput, PmoError> {
    run_live(form, model, mcp, |_, _| {}).await
}

/// [`run`], streamed: `on_event` sees each event of the run as it happens
/// (see [`Runner::stream`]), with the orchestrator's `max_display_instances`.
pub async fn run_live(
    form: Form,
    model: Arc<dyn Model>,
    mcp: &McpConfig,
    on_event: impl FnMut(&RunEvent, Option<usize>) + Send,
) -> Result<RunOutput, PmoError> {
    run_form(form, model, mcp, false, on_event).await
}

/// [`run_live`] asking for a [`PmoSummary`] ([`Runner::stream_typed`]):
/// the typed answer with the run's output.
pub async fn run_live_typed(
    form: Form,
    model: Arc<dyn Model>,
    mcp: &McpConfig,
    on_event: impl FnMut(&RunEvent, Option<usize>) + Send,
) -> Result<TypedOutput<PmoSummary>, PmoError> {
    let output = run_form(form, model, mcp, true, on_event).await?;
    Ok(TypedOutput::try_from(output)?)
}

async fn run_form(
    form: Form,
    model: Arc<dyn Model>,
    mcp: &McpConfig,
    typed: bool,
    on_event: impl FnMut(&RunEvent, Option<usize>) + Send,
) -> Result<RunOutput, PmoError> {
    match form {
        Form::Macro => {
            let agent = crate::pmo_macro::PmoOrchestrator::new();
            run_agent(agent, model, mcp, typed, on_event).await
        }
        Form::Cards => {
            let agent = crate::pmo_cards::PmoOrchestrator::new();
            run_agent(agent, model, mcp, typed, on_event).await
        }
    }
}

async fn run_agent<A: Agent>(
    agent: A,
    model: Arc<dyn Model>,
    mcp: &McpConfig,
    typed: bool,
    mut on_event: impl FnMut(&RunEvent, Option<usize>) + Send,
) -> Result<RunOutput, PmoError> {
    // MCP tools are discovered at run time; the orchestrator's agent-level
    // hooks (the audit hook) wrap them exactly as they wrap the static tools.
    let agent = McpAgent::connect(agent, mcp).await?;
    let shown = agent.config().max_display_instances;
    let mut runner = Runner::new(agent, model).with_correlation_id("pmo-run");
    let mut events = if typed {
        runner.stream_typed::<PmoSummary>(PROMPT)
    } else {
        runner.stream(PROMPT)
    };
    while let Some(event) = events.next().await {
        on_event(&event, shown);
        if let EventKind::Done(done) = event.kind {
            return Ok(*done?);
        }
    }
    Err(PmoError::NoEnd)
}

/// The trace as lines, without timings and with the current time masked, so
/// two runs of the same script compare equal.
pub fn normalized_trace(output: &RunOutput) -> Vec<String> {
    output
        .trace
        .iter()
        .map(|event| {
            let mut event = event.clone();
            match &mut event {
                TraceEvent::Model { elapsed_us, .. } => *elapsed_us = 0,
                TraceEvent::ToolCall(call) => {
                    let hookwire::agent::ToolCallEvent {
                        elapsed_us,
                        result,
                        tool,
                        ..
                    } = &mut **call;
                    *elapsed_us = 0;
                    if tool.starts_with("time__") && !result.is_error {
                        *result = ToolResult::text("<current time> [audit]");
                    }
                }
                _ => {}
            }
            event.to_string()
        })
        .collect()
}
