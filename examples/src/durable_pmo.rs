//! The durable PMO: an orchestrator whose tools have side effects (a
//! payment, a ticket), served as durable sessions on a Restate server
//! (`hookwire::durable`). See docs/durable.md.
//!
//! Every side effect is appended to a ledger file (`DURABLE_PMO_LEDGER`),
//! outside the process: the tests count in it that no tool, hook or model
//! request ran twice across a crash.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hookwire::BoxFuture;
use hookwire::agent::Runner;
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

/// How long each model answer takes, in milliseconds (a real model's
/// latency, for the benchmark; 0 by default).
pub const MODEL_DELAY_VAR: &str = "DURABLE_PMO_MODEL_DELAY_MS";

async fn latency() {
    sleep_ms(DELAY_VAR).await;
}

/// Sleeps the milliseconds in the variable `var`, if any.
async fn sleep_ms(var: &str) {
    let ms = std::env::var(var)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    if ms > 0 {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

/// Reports a project's status.
#[hookwire::tool]
pub async fn project_status(cx: &ToolContext, project: String) -> String {
    ledger(&format!("start project_status {project}"));
    ledger(&format!(
        "key {} project_status {project} {}",
        cx.agent(),
        cx.idempotency_key()
    ));
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

/// The payments API's address (`host:port`, plain HTTP on loopback); when
/// set, `pay_vendor` posts each payment there.
pub const PAYMENTS_VAR: &str = "DURABLE_PMO_PAYMENTS";

/// Pays a vendor (needs a person's approval). With a payments API
/// (`DURABLE_PMO_PAYMENTS`), the payment is a `POST /payments` whose
/// `Idempotency-Key` header is the call's idempotency key: the same on
/// every run of this call, so an API that keeps keys pays once even when
/// the call runs again after a crash.
#[hookwire::tool]
pub async fn pay_vendor(cx: &ToolContext, vendor: String, amount: u64) -> Result<String, String> {
    ledger(&format!("start pay_vendor {vendor}"));
    let key = cx.idempotency_key();
    ledger(&format!("key {} pay_vendor {vendor} {key}", cx.agent()));
    if let Ok(api) = std::env::var(PAYMENTS_VAR) {
        let body = hookwire::serde_json::json!({"vendor": vendor, "amount": amount});
        post_json(&api, "/payments", &key, &body.to_string())
            .await
            .map_err(|e| format!("the payments API at {api} failed: {e}"))?;
    }
    latency().await;
    ledger(&format!("done pay_vendor {vendor}"));
    Ok(format!("paid {amount} to {vendor}"))
}

/// `POST path` to `address` (plain HTTP/1.1) with `Idempotency-Key: key`
/// and a JSON body; the answer's status must be 2xx.
pub async fn post_json(address: &str, path: &str, key: &str, body: &str) -> std::io::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(address).await?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: {address}\r\nidempotency-key: {key}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await?;
    match answer.split_whitespace().nth(1) {
        Some(code) if code.starts_with('2') => Ok(()),
        _ => Err(std::io::Error::other(format!(
            "answered {:?}",
            answer.lines().next().unwrap_or_default()
        ))),
    }
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

/// The durable PMO orchestrator. Its durable name is `Agent`
/// (`AgentSession`, `AgentApproval`), the names every durable agent had
/// before agents were named, so that running sessions and scripts keep
/// working.
#[hookwire::agent(
    name = "durable-PMO",
    durable_name = "Agent",
    instruction = "Check the projects, pay the vendors that need paying, file follow-ups, sum up.",
    function_tools = [project_status, pay_vendor, open_ticket, export_data],
    tool_hooks = [audit],
)]
#[derive(Debug)]
pub struct DurablePmo;

/// A second agent in the same process: finance pays vendors and files
/// tickets. Its durable name is derived from its name: `DurableFinance`
/// (`DurableFinanceSession`, `DurableFinanceApproval`).
#[hookwire::agent(
    name = "durable-finance",
    instruction = "Pay the vendors that need paying, file follow-ups.",
    function_tools = [pay_vendor, open_ticket],
    tool_hooks = [audit],
)]
#[derive(Debug)]
pub struct DurableFinance;

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
        Box::pin(async move {
            sleep_ms(MODEL_DELAY_VAR).await;
            self.model.complete(request).await
        })
    }
}

/// The limit of each tool call, in milliseconds (none by default).
pub const TIMEOUT_VAR: &str = "DURABLE_PMO_TOOL_TIMEOUT_MS";

/// The runner of one session: the orchestrator on `model`; every call of
/// `pay_vendor` needs approval; each call within `DURABLE_PMO_TOOL_TIMEOUT_MS`
/// if set.
pub fn session_runner(model: Arc<ConversationScript>) -> Runner<DurablePmo> {
    let mut runner = Runner::new(DurablePmo::new(), model);
    if let Some(ms) = std::env::var(TIMEOUT_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        runner = runner.with_tool_call_timeout(Duration::from_millis(ms));
    }
    runner.approvals().require("pay_vendor");
    runner
}

/// The runner of one session of the finance agent: every call of
/// `pay_vendor` needs approval.
pub fn finance_runner(model: Arc<ConversationScript>) -> Runner<DurableFinance> {
    let runner = Runner::new(DurableFinance::new(), model);
    runner.approvals().require("pay_vendor");
    runner
}
