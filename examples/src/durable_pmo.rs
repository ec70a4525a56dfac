//! The durable PMO: an orchestrator whose tools have side effects (a
//! payment, a ticket), served as durable sessions on a Restate server
//! (`hookwire::durable`). See README, "Durable sessions".
//!
//! Every side effect is appended to a ledger file (`DURABLE_PMO_LEDGER`),
//! outside the process: the tests count in it that no tool, hook or model
//! request ran twice across a crash.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hookwire::agent::Runner;
use hookwire::approval::BoxFuture;
use hookwire::model::{
    Message, Model, ModelError, ModelRequest, ModelResponse, Script, ScriptedModel,
};
use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// The ledger file's variable.
pub const LEDGER_VAR: &str = "DURABLE_PMO_LEDGER";
/// How long each tool takes, in milliseconds (the project systems'
/// latency; 0 by default).
pub const DELAY_VAR: &str = "DURABLE_PMO_TOOL_DELAY_MS";

/// Appends one line to the ledger, if there is one.
pub fn ledger(line: &str) {
    let Some(path) = std::env::var_os(LEDGER_VAR) else {
        return;
    };
    let line = format!("{line} pid={}\n", std::process::id());
    // One `write` of a short line to a file opened for appending: lines of
    // concurrent writers do not interleave.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(line.as_bytes()));
    if let Err(e) = written {
        eprintln!(
            "durable_pmo: cannot write the ledger {}: {e}",
            path.display()
        );
    }
}

/// The project (`P4`) whose checks take ten times as long as the others'.
pub const SLOW_VAR: &str = "DURABLE_PMO_SLOW";

async fn latency() {
    let ms = std::env::var(DELAY_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    if ms > 0 {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

/// Reports a project's status.
#[hookwire::tool]
pub async fn project_status(project: String) -> String {
    ledger(&format!("start project_status {project}"));
    if std::env::var(SLOW_VAR).is_ok_and(|slow| slow == project) {
        for _ in 0..10 {
            latency().await;
        }
    } else {
        latency().await;
    }
    ledger(&format!("done project_status {project}"));
    format!("{project}: on track")
}

/// Pays a vendor (needs a person's approval).
#[hookwire::tool]
pub async fn pay_vendor(vendor: String, amount: u64) -> String {
    ledger(&format!("start pay_vendor {vendor}"));
    latency().await;
    ledger(&format!("done pay_vendor {vendor}"));
    format!("paid {amount} to {vendor}")
}

/// Opens a ticket.
#[hookwire::tool]
pub async fn open_ticket(title: String) -> String {
    ledger(&format!("start open_ticket {title}"));
    latency().await;
    ledger(&format!("done open_ticket {title}"));
    format!("ticket opened: {title}")
}

/// Exports a project's data: `bytes` bytes of it (the size tests ask
/// for more than a durable session keeps).
#[hookwire::tool]
pub async fn export_data(project: String, bytes: usize) -> String {
    ledger(&format!("start export_data {project}"));
    latency().await;
    ledger(&format!("done export_data {project}"));
    "x".repeat(bytes)
}

/// Audits every call that reaches the tools (it runs inside the call's
/// journaled step) and tags its result.
#[hookwire::hook]
pub async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    ledger(&format!("hook {} {}", cx.tool(), cx.tool_use_id()));
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" [audited]");
    }
    outcome
}

/// The durable PMO orchestrator.
#[hookwire::agent(
    name = "durable-PMO",
    instruction = "Check the projects, pay the vendors that need paying, file follow-ups, sum up.",
    function_tools = [project_status, pay_vendor, open_ticket, export_data],
    tool_hooks = [audit],
)]
#[derive(Debug)]
pub struct DurablePmo;

/// The library's scripted model answering by the conversation
/// ([`ScriptedModel::by_conversation`]: the turn after `n` assistant
/// messages is turn `n`, so a restarted process, whose earlier model
/// answers the journal replays, gets the next turn), with each request
/// written to the ledger.
#[derive(Debug)]
pub struct ConversationScript {
    model: ScriptedModel,
}

impl ConversationScript {
    /// Plays `script`.
    pub fn new(script: Script) -> Self {
        Self {
            model: ScriptedModel::new(script).by_conversation(),
        }
    }

    /// The script in `path` (YAML).
    pub fn from_file(path: impl Into<PathBuf>) -> Result<Self, ModelError> {
        let path = path.into();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| ModelError::InvalidScript(format!("{}: {e}", path.display())))?;
        Ok(Self::new(Script::from_yaml(&text)?))
    }

    /// `pmo/durable_script.yaml`.
    pub fn default_script() -> Result<Self, ModelError> {
        Self::from_file(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pmo/durable_script.yaml"))
    }
}

impl Model for ConversationScript {
    fn name(&self) -> &str {
        "durable-pmo-script"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let turn = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        ledger(&format!("model {turn}"));
        self.model.complete(request)
    }
}

/// The limit of each tool call, in milliseconds (none by default).
pub const TIMEOUT_VAR: &str = "DURABLE_PMO_TOOL_TIMEOUT_MS";

/// The runner of one session: the orchestrator on `model`; every call of
/// `pay_vendor` needs approval; each call within `DURABLE_PMO_TOOL_TIMEOUT_MS`
/// if set.
pub fn session_runner(model: Arc<ConversationScript>) -> Runner<DurablePmo> {
    let mut runner = Runner::with_model_arc(DurablePmo::new(), model);
    if let Some(ms) = std::env::var(TIMEOUT_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        runner = runner.with_tool_call_timeout(Duration::from_millis(ms));
    }
    runner.approvals().require("pay_vendor");
    runner
}
