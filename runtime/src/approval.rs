//! Human approval: who answers a hook's `Decision::Ask`.

use std::future::Future;
use std::pin::Pin;

use crate::call::ToolArgs;

/// What an approver is asked about.
#[derive(Debug)]
#[non_exhaustive]
pub struct ApprovalRequest<'a> {
    /// The agent making the call.
    pub agent: &'a str,
    /// The tool to be called.
    pub tool: &'a str,
    /// The model's id for the call.
    pub tool_use_id: &'a str,
    /// The arguments the tool would receive (after every rewrite so far).
    pub arguments: &'a ToolArgs,
    /// Why approval is needed (the asking hook's reason).
    pub reason: &'a str,
}

/// An approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalDecision {
    /// Run the call.
    Approve,
    /// Do not run it; the reason goes to the model.
    Deny(String),
}

/// A boxed future, the return type of object-safe async traits here.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Decides whether a call that needs approval may run.
///
/// Approval waits on a human or a policy service, so this trait is
/// object-safe and boxes its future; it is never on the hot path.
pub trait Approver: Send + Sync {
    /// Decides on one request.
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision>;
}

/// An approver from a synchronous function: the programmatic approver.
///
/// ```
/// # use hookwire::approval::{ApprovalDecision, FnApprover};
/// let approver = FnApprover::new(|req| {
///     if req.tool == "shell" {
///         ApprovalDecision::Deny("no shell".into())
///     } else {
///         ApprovalDecision::Approve
///     }
/// });
/// # let _ = approver;
/// ```
pub struct FnApprover<F>(F);

impl<F> FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> ApprovalDecision + Send + Sync,
{
    /// Wraps `decide`.
    pub fn new(decide: F) -> Self {
        Self(decide)
    }
}

impl<F> Approver for FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> ApprovalDecision + Send + Sync,
{
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        let decision = (self.0)(&request);
        Box::pin(std::future::ready(decision))
    }
}

// ---------------------------------------------------------------------------
// Sticky decisions, pending approvals and the askers behind them.
// ---------------------------------------------------------------------------

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::call::Outcome;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::hook::{Handler, Hook, Next};

/// The reason given to a call whose approval was deferred (the run pauses).
pub const PENDING_REASON: &str = "approval pending";

/// An answer at an approval prompt: once, or for every later call of the
/// same tool (sticky), or later (the run pauses and can be resumed).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answer {
    /// Run this call.
    Approve,
    /// Do not run this call; the reason goes to the model.
    Deny(String),
    /// Run this call and every later call of this tool without asking.
    AlwaysApprove,
    /// Deny this call and every later call of this tool without asking.
    AlwaysDeny,
    /// Decide later: the call is recorded as pending and the run pauses.
    Defer,
}

/// Asks someone (a human, a policy) about one call. Wrapped by
/// [`Approvals`], which keeps sticky decisions and pending requests.
pub trait Asker: Send + Sync {
    /// Asks about one request.
    fn ask<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer>;
}

impl<F> Asker for FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> ApprovalDecision + Send + Sync,
{
    fn ask<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        let answer = match (self.0)(&request) {
            ApprovalDecision::Approve => Answer::Approve,
            ApprovalDecision::Deny(reason) => Answer::Deny(reason),
        };
        Box::pin(std::future::ready(answer))
    }
}

/// The programmatic asker: a function from the request to an [`Answer`].
///
/// ```
/// # use hookwire::approval::{Answer, FnAsker};
/// let asker = FnAsker::new(|req| if req.tool == "rm" { Answer::AlwaysDeny } else { Answer::Approve });
/// # let _ = asker;
/// ```
pub struct FnAsker<F>(F);

impl<F: Fn(&ApprovalRequest<'_>) -> Answer + Send + Sync> FnAsker<F> {
    /// Wraps `ask`.
    pub fn new(ask: F) -> Self {
        Self(ask)
    }
}

impl<F: Fn(&ApprovalRequest<'_>) -> Answer + Send + Sync> Asker for FnAsker<F> {
    fn ask<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(std::future::ready((self.0)(&request)))
    }
}

/// An asker that defers every request: the run pauses, and the decisions
/// are given later through [`Approvals::resolve`] (possibly in another
/// process, after the state was exported).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeferAll;

impl Asker for DeferAll {
    fn ask<'a>(&'a self, _request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(std::future::ready(Answer::Defer))
    }
}

/// A sticky decision about one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sticky {
    /// Every call of the tool is approved without asking.
    AlwaysApprove,
    /// Every call of the tool is denied without asking.
    AlwaysDeny,
}

/// Approval settings: which tools need approval at the agent level (on top
/// of any approval hooks in the chains).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalSettings {
    /// Tools whose every call needs approval.
    #[serde(default)]
    pub needs_approval: BTreeSet<String>,
}

/// A call waiting for a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingApproval {
    /// The agent.
    pub agent: String,
    /// The tool.
    pub tool: String,
    /// The model's id for the call.
    pub tool_use_id: String,
    /// The arguments the tool would receive (`null` if they did not parse).
    pub arguments: Value,
    /// Why approval is needed.
    pub reason: String,
}

/// A decision given for a pending call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Resolution {
    /// Run it.
    Approve,
    /// Do not run it.
    Deny {
        /// Shown to the model.
        reason: String,
    },
}

/// Everything approval remembers, as plain serde data: settings, sticky
/// decisions, pending requests and decisions given but not yet used.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ApprovalState {
    /// The settings.
    #[serde(default)]
    pub settings: ApprovalSettings,
    /// Sticky decisions by tool name.
    #[serde(default)]
    pub sticky: BTreeMap<String, Sticky>,
    /// Calls waiting for a decision.
    #[serde(default)]
    pub pending: Vec<PendingApproval>,
    /// Decisions given for pending calls, by tool-use id.
    #[serde(default)]
    pub resolved: BTreeMap<String, Resolution>,
}

/// The approver an agent run uses: sticky decisions first, then decisions
/// given for pending calls, then the [`Asker`]. Cloning shares the state.
///
/// ```
/// # use hookwire::approval::{Answer, Approvals, FnAsker, Sticky};
/// let approvals = Approvals::new(FnAsker::new(|_| Answer::AlwaysApprove));
/// approvals.set_sticky("search", Sticky::AlwaysDeny);
/// assert_eq!(approvals.state().sticky["search"], Sticky::AlwaysDeny);
/// ```
#[derive(Clone)]
pub struct Approvals {
    state: Arc<Mutex<ApprovalState>>,
    asker: Option<Arc<dyn Asker>>,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals")
            .field("state", &*self.lock())
            .field("asker", &self.asker.is_some())
            .finish()
    }
}

impl Default for Approvals {
    fn default() -> Self {
        Self::none()
    }
}

impl Approvals {
    /// Approvals that ask `asker`.
    pub fn new(asker: impl Asker + 'static) -> Self {
        Self::from_arc(Arc::new(asker))
    }

    /// Approvals that ask a shared asker.
    pub fn from_arc(asker: Arc<dyn Asker>) -> Self {
        Self {
            state: Arc::default(),
            asker: Some(asker),
        }
    }

    /// Approvals with nobody to ask: every request that no sticky or given
    /// decision answers is denied (fail closed).
    pub fn none() -> Self {
        Self {
            state: Arc::default(),
            asker: None,
        }
    }

    /// Replaces the state (to restore an exported one).
    pub fn with_state(self, state: ApprovalState) -> Self {
        self.replace_state(state);
        self
    }

    /// Replaces the state in place (every clone sees it).
    pub fn replace_state(&self, state: ApprovalState) {
        *self.lock() = state;
    }

    fn lock(&self) -> MutexGuard<'_, ApprovalState> {
        crate::lock(&self.state)
    }

    /// A copy of the state, to export.
    pub fn state(&self) -> ApprovalState {
        self.lock().clone()
    }

    /// Records a sticky decision for `tool`.
    pub fn set_sticky(&self, tool: impl Into<String>, sticky: Sticky) {
        self.lock().sticky.insert(tool.into(), sticky);
    }

    /// Makes every call of `tool` need approval.
    pub fn require(&self, tool: impl Into<String>) {
        self.lock().settings.needs_approval.insert(tool.into());
    }

    /// Whether `tool` needs approval by the settings.
    pub fn is_required(&self, tool: &str) -> bool {
        self.lock().settings.needs_approval.contains(tool)
    }

    /// Calls waiting for a decision.
    pub fn pending(&self) -> Vec<PendingApproval> {
        self.lock().pending.clone()
    }

    /// Gives the decision for a pending call; it is used when the call is
    /// run again (on resume). Returns whether such a call was pending: a
    /// decision for an id that is not pending is refused and changes
    /// nothing (it must not approve a later call that happens to get that
    /// id).
    pub fn resolve(&self, tool_use_id: &str, resolution: Resolution) -> bool {
        let mut state = self.lock();
        let before = state.pending.len();
        state.pending.retain(|p| p.tool_use_id != tool_use_id);
        if state.pending.len() == before {
            return false;
        }
        state.resolved.insert(tool_use_id.to_owned(), resolution);
        true
    }

    /// Drops the calls waiting for a decision and the decisions not yet
    /// used (sticky decisions and settings stay): what a new run does, since
    /// they belong to a run that is over.
    pub fn clear_waiting(&self) {
        let mut state = self.lock();
        state.pending.clear();
        state.resolved.clear();
    }

    /// Whether a call with this id is pending.
    pub fn is_pending(&self, tool_use_id: &str) -> bool {
        self.lock()
            .pending
            .iter()
            .any(|p| p.tool_use_id == tool_use_id)
    }
}

impl Approver for Approvals {
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        Box::pin(async move {
            {
                let mut state = self.lock();
                match state.sticky.get(request.tool) {
                    Some(Sticky::AlwaysApprove) => return ApprovalDecision::Approve,
                    Some(Sticky::AlwaysDeny) => {
                        return ApprovalDecision::Deny(format!(
                            "calls of `{}` are always denied",
                            request.tool
                        ));
                    }
                    None => {}
                }
                match state.resolved.remove(request.tool_use_id) {
                    Some(Resolution::Approve) => return ApprovalDecision::Approve,
                    Some(Resolution::Deny { reason }) => return ApprovalDecision::Deny(reason),
                    None => {}
                }
            }
            let Some(asker) = &self.asker else {
                return ApprovalDecision::Deny(format!(
                    "approval required ({}) but no approver is configured",
                    request.reason
                ));
            };
            let tool = request.tool.to_owned();
            let pending = PendingApproval {
                agent: request.agent.to_owned(),
                tool: tool.clone(),
                tool_use_id: request.tool_use_id.to_owned(),
                arguments: request.arguments.to_value().unwrap_or(Value::Null),
                reason: request.reason.to_owned(),
            };
            match asker.ask(request).await {
                Answer::Approve => ApprovalDecision::Approve,
                Answer::Deny(reason) => ApprovalDecision::Deny(reason),
                Answer::AlwaysApprove => {
                    self.set_sticky(tool, Sticky::AlwaysApprove);
                    ApprovalDecision::Approve
                }
                Answer::AlwaysDeny => {
                    let reason = format!("calls of `{tool}` are always denied");
                    self.set_sticky(tool, Sticky::AlwaysDeny);
                    ApprovalDecision::Deny(reason)
                }
                Answer::Defer => {
                    let mut state = self.lock();
                    state
                        .pending
                        .retain(|p| p.tool_use_id != pending.tool_use_id);
                    state.pending.push(pending);
                    ApprovalDecision::Deny(PENDING_REASON.to_owned())
                }
            }
        })
    }
}

/// When a tool call needs approval: always, never, or by a predicate on
/// its arguments.
pub trait ApprovalRule: Send + Sync {
    /// Whether a call with these arguments needs approval.
    fn needs_approval(&self, args: &Value) -> bool;
}

impl ApprovalRule for bool {
    fn needs_approval(&self, _args: &Value) -> bool {
        *self
    }
}

/// A predicate on the arguments as an [`ApprovalRule`].
#[derive(Debug, Clone, Copy)]
pub struct When<F>(pub F);

impl<F: Fn(&Value) -> bool + Send + Sync> ApprovalRule for When<F> {
    fn needs_approval(&self, args: &Value) -> bool {
        (self.0)(args)
    }
}

/// Per-tool `needs_approval` as an around-hook: when the rule says so, the
/// context's approver is asked before the rest of the chain runs; without
/// an approver, or on a denial, the call is denied and the tool never runs.
/// Arguments that do not parse as a JSON object always need approval (fail
/// closed).
///
/// ```
/// use hookwire::approval::{NeedsApproval, When};
/// use hookwire::{chain, FnTool, Json, ToolHandler};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct A { path: String }
/// let delete = FnTool::new("delete", "Deletes a file.", |a: A| async move { Json(a.path) });
/// let gated = chain!(
///     NeedsApproval::new(When(|args: &serde_json::Value| args["path"].as_str() != Some("/tmp/x")))
///     => ToolHandler(delete)
/// );
/// # let _ = gated;
/// ```
#[derive(Debug, Clone, Copy)]
pub struct NeedsApproval<R> {
    rule: R,
}

impl<R: ApprovalRule> NeedsApproval<R> {
    /// A gate with `rule` (`true`, `false`, or [`When`]).
    pub fn new(rule: R) -> Self {
        Self { rule }
    }
}

impl<R: ApprovalRule> Hook for NeedsApproval<R> {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        mut args: crate::call::ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let reason = match args.object_mut() {
            Ok(map) => {
                // The rule reads a `Value`: the map is moved into one and
                // back, not copied.
                let value = Value::Object(std::mem::take(map));
                let needed = self.rule.needs_approval(&value);
                if let Value::Object(value) = value {
                    *map = value;
                }
                if !needed {
                    return next.run(cx, args).await;
                }
                format!("`{}` needs approval", cx.tool())
            }
            Err(_) => format!(
                "the arguments of `{}` do not parse, so the call needs approval",
                cx.tool()
            ),
        };
        match crate::prepost::ask(cx, &args, &reason).await {
            ApprovalDecision::Approve => next.run(cx, args).await,
            ApprovalDecision::Deny(reason) => Err(ToolError::Denied {
                reason,
                hook: Some("needs_approval".into()),
            }),
        }
    }

    fn name(&self) -> &'static str {
        "needs_approval"
    }
}

/// Asks at the terminal: prints the request on standard error and reads
/// an answer from standard input: `y`/`yes` approves, `n`/`no` denies,
/// `a`/`always` approves this and every later call of the tool, `e`/`never`
/// denies this and every later call of the tool. Anything else asks again.
///
/// When standard input is not a terminal, or is closed, the call is denied
/// (fail closed).
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalApprover {
    allow_non_terminal: bool,
}

impl TerminalApprover {
    /// A terminal approver.
    pub fn new() -> Self {
        Self::default()
    }

    /// Also reads answers when standard input is not a terminal (a pipe).
    pub fn allow_non_terminal(mut self) -> Self {
        self.allow_non_terminal = true;
        self
    }

    /// Reads one answer from a line typed at the prompt (`None`: ask again).
    pub fn parse_answer(line: &str) -> Option<Answer> {
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" | "approve" => Some(Answer::Approve),
            "n" | "no" | "deny" => Some(Answer::Deny("denied at the terminal".to_owned())),
            "a" | "always" => Some(Answer::AlwaysApprove),
            "e" | "never" => Some(Answer::AlwaysDeny),
            _ => None,
        }
    }
}

static PROMPT: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Asker for TerminalApprover {
    fn ask<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        use std::io::IsTerminal;
        let question = format!(
            "[hookwire] agent `{}` wants to call `{}` with {} ({}).\nApprove? [y]es / [n]o / [a]lways / n[e]ver: ",
            request.agent,
            request.tool,
            request
                .arguments
                .to_value()
                .map_or_else(|_| format!("{:?}", request.arguments), |v| v.to_string()),
            request.reason,
        );
        let allow = self.allow_non_terminal;
        Box::pin(async move {
            if !allow && !std::io::stdin().is_terminal() {
                return Answer::Deny("approval needs a terminal, and there is none".to_owned());
            }
            // One question at a time, even when calls run concurrently.
            let _turn = PROMPT.lock().await;
            let asked = tokio::task::spawn_blocking(move || {
                use std::io::{BufRead, Write};
                let stdin = std::io::stdin();
                let mut stderr = std::io::stderr();
                loop {
                    let _ = write!(stderr, "{question}");
                    let _ = stderr.flush();
                    let mut line = String::new();
                    match stdin.lock().read_line(&mut line) {
                        Ok(0) | Err(_) => {
                            return Answer::Deny("no answer at the terminal".to_owned());
                        }
                        Ok(_) => {
                            if let Some(answer) = Self::parse_answer(&line) {
                                return answer;
                            }
                        }
                    }
                }
            })
            .await;
            asked.unwrap_or_else(|_| Answer::Deny("the terminal prompt failed".to_owned()))
        })
    }
}
