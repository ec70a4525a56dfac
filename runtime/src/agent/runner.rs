//! The agent loop.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use futures_util::{FutureExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tracing::Instrument;

use super::decl::AgentDecl;
use super::inject::{Clock, HookEvent, InjectionAction, SystemClock, run_injection};
use super::journal::{Journal, JournalError};
use super::lifecycle::{
    AgentFailed, ExecutionEnd, ExecutionStart, Flow, LifecycleHooks, PostToolUse, PreToolUse,
    PromptSubmit, StepEnd, StepStart, StopDecision, StopEvent, decide,
};
use crate::approval::{
    ApprovalDecision, ApprovalRequest, ApprovalState, Approvals, Approver, Asker, PENDING_REASON,
    PendingApproval,
};
use crate::call::{Outcome, ToolCall, ToolResult, into_result};
use crate::context::ToolSource;
use crate::error::ToolError;
use crate::lock;
use crate::model::{Message, Model, ModelError, ModelRequest, ModelResponse, Usage};
use crate::prepost::Decision;
use crate::toolset::{CallScope, ToolSet};

/// Limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunSettings {
    /// Model requests per run at most; past it the run fails with
    /// [`RunError::StepLimit`].
    pub max_steps: usize,
    /// Tool calls of one step that run at once at most.
    pub max_parallel: usize,
    /// How often `stop` hooks may force the loop on per run (the loop guard).
    pub max_forced_continues: usize,
    /// How long one tool call (its whole chain: hooks and tool) may take,
    /// `None` for no limit (the default).
    ///
    /// Without it, a hook or tool that never returns and has no timeout of
    /// its own (`#[hook(timeout_ms = ..)]`, `Guarded`, `hooks::Timeout`)
    /// hangs the run forever. With it, such a call is cancelled at the limit
    /// and answered with an error result, [`ToolError::TimedOut`] naming the
    /// tool (`tool call `x` timed out after 30000 ms`); the run goes on and the
    /// model reads the error. A hook's own, shorter timeout still fires
    /// first and follows that hook's failure policy. Waiting for an
    /// approval is not part of the call and is not limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_timeout: Option<Duration>,
}

impl Default for RunSettings {
    fn default() -> Self {
        Self {
            max_steps: 20,
            max_parallel: 8,
            max_forced_continues: 3,
            tool_call_timeout: None,
        }
    }
}

/// Why a run failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The step limit was reached without a final answer.
    #[error("no final answer after {0} step(s)")]
    StepLimit(usize),
    /// `resume` was called with nothing to resume.
    #[error("nothing to resume: the run is not paused")]
    NotPaused,
    /// `run` was called while the run is paused for approval; resolve the
    /// pending calls and `resume` first.
    #[error("the run is paused for approval: resolve the pending calls and resume it first")]
    Paused,
    /// A paused run still has calls waiting for a decision.
    #[error("{0} call(s) still wait for an approval decision")]
    StillPending(usize),
    /// A journaled step could not be recorded or replayed.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStatus {
    /// The model gave a final answer.
    Completed,
    /// A hook stopped the run.
    Stopped {
        /// Why.
        reason: String,
        /// Which hook.
        hook: Option<String>,
    },
    /// Calls wait for approval; export the state, decide, and resume.
    Paused {
        /// The waiting calls.
        pending: Vec<PendingApproval>,
    },
}

impl RunStatus {
    /// A short name: `completed`, `stopped`, `paused`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Stopped { .. } => "stopped",
            Self::Paused { .. } => "paused",
        }
    }
}

/// One thing that happened in a run, in order: the trace a run returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // built a few times per run, never on the hot path
pub enum TraceEvent {
    /// The user's prompt joined the history.
    Prompt {
        /// The text (after `user_prompt_submit` hooks).
        text: String,
    },
    /// A lifecycle hook blocked or redirected the run.
    Hook {
        /// The event (`user_prompt_submit`, `stop`, ...).
        event: String,
        /// What it decided.
        decision: String,
        /// Why.
        reason: String,
    },
    /// A config-driven injection ran.
    Injection {
        /// The tool.
        tool: String,
        /// What happened.
        action: InjectionAction,
    },
    /// The model answered.
    Model {
        /// The step.
        step: usize,
        /// The answer's text.
        text: String,
        /// The names of the tools it called.
        tool_calls: Vec<String>,
        /// How long the request took, in microseconds.
        elapsed_us: u64,
    },
    /// A tool call finished (or was refused).
    ToolCall {
        /// The step.
        step: usize,
        /// The tool-use id.
        id: String,
        /// The tool.
        tool: String,
        /// Where it comes from.
        source: ToolSource,
        /// The arguments as the model sent them.
        arguments: Value,
        /// The arguments the tool received, when hooks rewrote them (a
        /// lifecycle `pre_tool_use` hook or a hook of the call's chain);
        /// `None` when they are the ones the model sent or the tool did not
        /// run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        received: Option<Value>,
        /// The hooks of the call's chain, outermost first (agent-level and
        /// entry hooks), whether it was allowed or not.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        hooks: Vec<String>,
        /// `allowed`, `denied`, `stopped`, `error`, `pending`.
        decision: String,
        /// The hook that decided, when one did.
        hook: Option<String>,
        /// What the model reads.
        result: ToolResult,
        /// How long it took, in microseconds.
        elapsed_us: u64,
    },
    /// Something about the agent every run reports (a hook that selects
    /// none of the tools found when its MCP servers connected, say); also
    /// a `warn` event.
    Warning {
        /// What is wrong.
        text: String,
    },
    /// The run ended.
    Finished {
        /// `completed`, `stopped`, `paused`, `failed`.
        status: String,
        /// The final text (or the reason).
        text: String,
    },
}

impl fmt::Display for TraceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Prompt { text } => write!(f, "user: {text}"),
            Self::Hook {
                event,
                decision,
                reason,
            } => write!(f, "hook {event}: {decision} ({reason})"),
            Self::Injection { tool, action } => write!(f, "inject {tool}: {action:?}"),
            Self::Model {
                step,
                text,
                tool_calls,
                elapsed_us,
            } => {
                write!(f, "step {step} model ({} us):", elapsed_us)?;
                if !text.is_empty() {
                    write!(f, " {text:?}")?;
                }
                if !tool_calls.is_empty() {
                    write!(f, " calls [{}]", tool_calls.join(", "))?;
                }
                Ok(())
            }
            Self::ToolCall {
                step,
                tool,
                source,
                arguments,
                received,
                hooks,
                decision,
                hook,
                result,
                elapsed_us,
                ..
            } => {
                write!(f, "step {step} tool {tool} ({source}) {arguments}")?;
                if let Some(received) = received {
                    write!(f, ", received {received}")?;
                }
                write!(f, " -> {decision}")?;
                if let Some(hook) = hook {
                    write!(f, " by {hook}")?;
                }
                if !hooks.is_empty() {
                    write!(f, " [hooks: {}]", hooks.join(", "))?;
                }
                write!(f, " ({elapsed_us} us): {}", result.text_content())
            }
            Self::Warning { text } => write!(f, "warning: {text}"),
            Self::Finished { status, text } => write!(f, "{status}: {text}"),
        }
    }
}

/// What a run returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunOutput {
    /// How it ended.
    pub status: RunStatus,
    /// The final answer (empty unless completed).
    pub text: String,
    /// What happened, in order.
    pub trace: Vec<TraceEvent>,
    /// Tokens used.
    pub usage: Usage,
    /// Model requests made.
    pub steps: usize,
}

impl RunOutput {
    /// The trace as readable lines.
    pub fn trace_text(&self) -> String {
        self.trace
            .iter()
            .map(|e| format!("{e}\n"))
            .collect::<String>()
    }
}

/// A step whose tool calls wait for approval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingStep {
    /// The step.
    pub step: usize,
    /// The model's answer that made the calls.
    pub response: ModelResponse,
    /// The calls, in order.
    pub calls: Vec<ToolCall>,
    /// The results of the calls that already ran (`None` for waiting ones).
    pub results: Vec<Option<ToolResult>>,
}

/// A run's resumable state, as plain serde data (JSON by `serde_json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunState {
    /// The format version (1).
    pub version: u32,
    /// The agent.
    pub agent: String,
    /// The correlation id.
    pub correlation_id: String,
    /// The history.
    pub history: Vec<Message>,
    /// Approval settings, sticky decisions, pending and resolved approvals.
    pub approvals: ApprovalState,
    /// The step waiting for approval, if paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_step: Option<PendingStep>,
    /// Model requests made in the current run so far.
    #[serde(default)]
    pub steps: usize,
    /// The limits.
    #[serde(default)]
    pub settings: RunSettings,
    /// The histories kept for child agents (`history_merge_target: child`),
    /// by tool name (`agent__<Name>`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub children: BTreeMap<String, Vec<Message>>,
    /// How often `stop` hooks forced the current run on so far.
    #[serde(default)]
    pub forced_continues: usize,
    /// The trace of the current run so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceEvent>,
}

/// The format version of [`RunState`] that this hookwire writes and reads.
pub const STATE_VERSION: u32 = 1;

/// Why [`Runner::import_state`] refused a state. The runner is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The state has another format version.
    #[error("the state has format version {found}; this hookwire reads version {expected}")]
    Version {
        /// The state's version.
        found: u32,
        /// The version this hookwire reads.
        expected: u32,
    },
    /// The state was exported by another agent.
    #[error("the state belongs to agent `{found}`, not to `{expected}`")]
    OtherAgent {
        /// The agent the state names.
        found: String,
        /// This runner's agent.
        expected: String,
    },
    /// The state names a tool the agent does not have.
    #[error("the state's {what} names tool `{tool}`, which agent `{agent}` does not have")]
    UnknownTool {
        /// The agent.
        agent: String,
        /// Where the state names it.
        what: &'static str,
        /// The tool.
        tool: String,
    },
    /// The state names a call id that is not a waiting call of its paused
    /// step.
    #[error(
        "the state's {what} names call id `{id}`, which is not a waiting call of its paused step"
    )]
    UnknownCall {
        /// Where the state names it.
        what: &'static str,
        /// The id.
        id: String,
    },
    /// The paused step contradicts itself.
    #[error("the state's paused step is inconsistent: {0}")]
    Inconsistent(String),
}

impl RunState {
    /// Checks the state against `agent`: its version, its agent, and that
    /// every tool and call id it names exists.
    fn check<A: AgentDecl>(&self, agent: &A) -> Result<(), StateError> {
        if self.version != STATE_VERSION {
            return Err(StateError::Version {
                found: self.version,
                expected: STATE_VERSION,
            });
        }
        let name = &agent.config().name;
        if self.agent != *name {
            return Err(StateError::OtherAgent {
                found: self.agent.clone(),
                expected: name.to_string(),
            });
        }
        let tools = agent.tools();
        let unknown = |what, tool: &str| StateError::UnknownTool {
            agent: name.to_string(),
            what,
            tool: tool.to_owned(),
        };
        for tool in self.children.keys() {
            if !tools.contains(tool) {
                return Err(unknown("child histories", tool));
            }
        }
        let mut waiting = std::collections::HashSet::new();
        if let Some(step) = &self.pending_step {
            if step.results.len() != step.calls.len() {
                return Err(StateError::Inconsistent(format!(
                    "{} call(s) but {} result slot(s)",
                    step.calls.len(),
                    step.results.len()
                )));
            }
            let mut ids = std::collections::HashSet::new();
            for (call, result) in step.calls.iter().zip(&step.results) {
                if !tools.contains(&call.name) {
                    return Err(unknown("paused step", &call.name));
                }
                if call.id.is_empty() || !ids.insert(call.id.as_str()) {
                    return Err(StateError::Inconsistent(format!(
                        "call id `{}` is empty or used twice",
                        call.id
                    )));
                }
                if result.is_none() {
                    waiting.insert(call.id.as_str());
                }
            }
        }
        for p in &self.approvals.pending {
            if !waiting.contains(p.tool_use_id.as_str()) {
                return Err(StateError::UnknownCall {
                    what: "pending approvals",
                    id: p.tool_use_id.clone(),
                });
            }
        }
        for id in self.approvals.resolved.keys() {
            if !waiting.contains(id.as_str()) {
                return Err(StateError::UnknownCall {
                    what: "approval decisions",
                    id: id.clone(),
                });
            }
        }
        Ok(())
    }
}

impl RunState {
    /// The state as JSON.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }

    /// The state from JSON.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// What a parent run shares with agents called as tools during a step.
pub(crate) struct ParentRun {
    /// The parent's history (shared, not copied: the step does not change
    /// it until its calls are done).
    pub(crate) history: Arc<Vec<Message>>,
    /// The parent's model: what a child with no model of its own asks.
    pub(crate) model: Arc<dyn Model>,
    /// Messages of children to append to the parent's history after the step.
    merged: Mutex<Vec<Message>>,
    /// The session's child histories (`history_merge_target: child`).
    children: Arc<Mutex<ChildHistories>>,
}

/// The histories a session keeps for its child agents, by tool name.
pub(crate) type ChildHistories = BTreeMap<String, Vec<Message>>;

impl ParentRun {
    /// The child's history kept by this session.
    pub(crate) fn child_history(&self, tool: &str) -> Vec<Message> {
        lock(&self.children).get(tool).cloned().unwrap_or_default()
    }

    /// Keeps the child's history for its next call in this session.
    pub(crate) fn keep_child_history(&self, tool: &str, history: Vec<Message>) {
        lock(&self.children).insert(tool.to_owned(), history);
    }

    /// Appends a child's messages to the parent's history after the step.
    pub(crate) fn merge(&self, messages: Vec<Message>) {
        lock(&self.merged).extend(messages);
    }
}

tokio::task_local! {
    pub(crate) static PARENT: Arc<ParentRun>;
}

/// Runs an agent: user message -> model -> tool calls -> model ... until a
/// final answer, a stop, a pause for approval, or the step limit.
///
/// It holds the agent, the model, the history, the approvals, extra
/// lifecycle hooks `H` (run after the agent's own) and the correlation id.
///
/// ```
/// use hookwire::agent::{AgentConfig, AgentDecl, Runner};
/// use hookwire::model::{ScriptedModel, Turn};
/// use hookwire::{FnTool, Json, Router, End, Route, ToolHandler};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add { a: i64, b: i64 }
///
/// struct Calc<T> { config: AgentConfig, tools: T }
/// impl<T: hookwire::ToolSet + 'static> AgentDecl for Calc<T> {
///     type Tools = T;
///     fn config(&self) -> &AgentConfig { &self.config }
///     fn tools(&self) -> &T { &self.tools }
/// }
///
/// let agent = Calc {
///     config: AgentConfig::new("calc"),
///     tools: Router::new().tool(FnTool::new("add", "Adds.", |x: Add| async move { Json(x.a + x.b) })),
/// };
/// let model = ScriptedModel::from_turns([
///     Turn::call("add", serde_json::json!({"a": 2, "b": 3})),
///     Turn::text("5"),
/// ]);
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// # rt.block_on(async {
/// let mut runner = Runner::new(agent, model);
/// let out = runner.run("2 + 3?").await.unwrap();
/// assert_eq!(out.text, "5");
/// assert_eq!(runner.history()[2].text(), "5"); // the tool result the model read
/// # });
/// ```
pub struct Runner<A: AgentDecl, H = ()> {
    agent: A,
    model: Arc<dyn Model>,
    hooks: H,
    approvals: Approvals,
    scope: CallScope,
    history: Arc<Vec<Message>>,
    children: Arc<Mutex<ChildHistories>>,
    forced: usize,
    settings: RunSettings,
    clock: Arc<dyn Clock>,
    pending: Option<PendingStep>,
    steps: usize,
    usage: Usage,
    trace: Vec<TraceEvent>,
    injections: u64,
}

impl<A: AgentDecl, H> fmt::Debug for Runner<A, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("agent", &self.agent.config().name)
            .field("model", &self.model.name())
            .field("history", &self.history.len())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// A fresh correlation id: 64 random bits (from the standard library's
/// per-instance random hash keys), so that no counter is shared between
/// sessions.
fn fresh_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

impl<A: AgentDecl> Runner<A, ()> {
    /// A runner for `agent` asking `model`, with no extra hooks and no
    /// approver (calls that need approval are denied).
    pub fn new(agent: A, model: impl Model + 'static) -> Self {
        Self::with_model_arc(agent, Arc::new(model))
    }

    /// A runner with a shared model.
    pub fn with_model_arc(agent: A, model: Arc<dyn Model>) -> Self {
        let name: Arc<str> = Arc::from(&*agent.config().name);
        let id = fresh_id();
        let approvals = Approvals::none();
        let mut settings = RunSettings::default();
        if let Some(n) = agent.config().max_parallel {
            settings.max_parallel = n.max(1);
        }
        let mut scope = CallScope::new(name.clone())
            .with_correlation_id(format!("{name}-{id:016x}"))
            .with_approver(Arc::new(approvals.clone()));
        scope.set_call_log(Arc::default());
        Self {
            agent,
            model,
            hooks: (),
            approvals,
            scope,
            history: Arc::default(),
            children: Arc::default(),
            forced: 0,
            settings,
            clock: Arc::new(SystemClock),
            pending: None,
            steps: 0,
            usage: Usage::default(),
            trace: Vec::new(),
            injections: 0,
        }
    }
}

impl<A: AgentDecl, H: LifecycleHooks> Runner<A, H> {
    /// Adds lifecycle hooks, run after the agent's own hooks.
    pub fn with_hooks<H2: LifecycleHooks>(self, hooks: H2) -> Runner<A, H2> {
        Runner {
            agent: self.agent,
            model: self.model,
            hooks,
            approvals: self.approvals,
            scope: self.scope,
            history: self.history,
            children: self.children,
            forced: self.forced,
            settings: self.settings,
            clock: self.clock,
            pending: self.pending,
            steps: self.steps,
            usage: self.usage,
            trace: self.trace,
            injections: self.injections,
        }
    }

    /// Uses `asker` for approvals (keeping the approval state).
    pub fn with_asker(self, asker: impl Asker + 'static) -> Self {
        let state = self.approvals.state();
        self.with_approvals(Approvals::new(asker).with_state(state))
    }

    /// Uses these approvals (their state is shared with the caller's clone).
    pub fn with_approvals(mut self, approvals: Approvals) -> Self {
        self.scope.set_approver(Some(Arc::new(approvals.clone())));
        self.approvals = approvals;
        self
    }

    /// Takes what a child's session inherits from the call that runs it:
    /// the approver the tool chains consult (`Decision::Ask` in a chain,
    /// leaving the run's own approvals as they are) and the session values.
    pub(crate) fn inherit_scope(&mut self, parent: &CallScope) {
        if let Some(approver) = parent.approver() {
            self.scope.set_approver(Some(approver.clone()));
        }
        *self.scope.session_mut() = parent.session().clone();
    }

    /// Sets a typed value of this session (the user's id, their
    /// credentials): tools and hooks read it with
    /// [`ToolContext::session`](crate::ToolContext::session), child agents
    /// called in the session too. One value per type. Not exported with the
    /// state.
    pub fn with_session_value<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.scope.session_mut().insert(value);
        self
    }

    /// Sets the limits.
    pub fn with_settings(mut self, settings: RunSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Sets the step limit.
    pub fn with_max_steps(mut self, max_steps: usize) -> Self {
        self.settings.max_steps = max_steps;
        self
    }

    /// Sets how many tool calls of one step run at once.
    pub fn with_max_parallel(mut self, max_parallel: usize) -> Self {
        self.settings.max_parallel = max_parallel.max(1);
        self
    }

    /// Limits how long one tool call may take (see
    /// [`RunSettings::tool_call_timeout`]).
    pub fn with_tool_call_timeout(mut self, limit: Duration) -> Self {
        self.settings.tool_call_timeout = Some(limit);
        self
    }

    /// Sets the correlation id.
    pub fn with_correlation_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.scope.set_correlation_id(id);
        self
    }

    /// Sets the clock (for TTL injections).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Starts from this history.
    pub fn with_history(mut self, history: Vec<Message>) -> Self {
        self.history = Arc::new(history);
        self
    }

    /// The history.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The history, mutably.
    pub fn history_mut(&mut self) -> &mut Vec<Message> {
        Arc::make_mut(&mut self.history)
    }

    /// The approvals (clone it to resolve pending calls).
    pub fn approvals(&self) -> &Approvals {
        &self.approvals
    }

    /// The agent.
    pub fn agent(&self) -> &A {
        &self.agent
    }

    /// The correlation id.
    pub fn correlation_id(&self) -> &str {
        self.scope.correlation_id()
    }

    /// The resumable state.
    pub fn export_state(&self) -> RunState {
        RunState {
            version: STATE_VERSION,
            agent: self.agent.config().name.to_string(),
            correlation_id: self.scope.correlation_id().to_string(),
            history: self.history.to_vec(),
            approvals: self.approvals.state(),
            pending_step: self.pending.clone(),
            steps: self.steps,
            settings: self.settings,
            children: lock(&self.children).clone(),
            forced_continues: self.forced,
            trace: self.trace.clone(),
        }
    }

    /// Restores an exported state: history, child histories, approvals, a
    /// paused step, the trace so far.
    ///
    /// A state of another format version or another agent, or one that
    /// names tools the agent does not have or call ids that are not waiting
    /// calls of its paused step, is refused with a [`StateError`], and the
    /// runner is left as it was.
    pub fn import_state(&mut self, state: RunState) -> Result<(), StateError> {
        state.check(&self.agent)?;
        self.history = Arc::new(state.history);
        *lock(&self.children) = state.children;
        self.approvals.replace_state(state.approvals);
        self.scope
            .set_approver(Some(Arc::new(self.approvals.clone())));
        self.scope.set_correlation_id(state.correlation_id);
        self.pending = state.pending_step;
        self.steps = state.steps;
        self.forced = state.forced_continues;
        self.settings = state.settings;
        self.trace = state.trace;
        Ok(())
    }

    /// [`import_state`](Self::import_state) for a builder chain.
    pub fn with_state(mut self, state: RunState) -> Result<Self, StateError> {
        self.import_state(state)?;
        Ok(self)
    }

    /// The histories this session keeps for its child agents
    /// (`history_merge_target: child`), by tool name.
    pub fn child_histories(&self) -> BTreeMap<String, Vec<Message>> {
        lock(&self.children).clone()
    }

    /// Whether the run is paused for approval.
    pub fn is_paused(&self) -> bool {
        self.pending.is_some()
    }

    /// Runs one user message to the end.
    pub async fn run(&mut self, prompt: impl Into<String>) -> Result<RunOutput, RunError> {
        self.run_inner(prompt.into(), None).await
    }

    /// [`run`](Self::run) with each model request, tool call and injection
    /// recorded in `journal` as one step, or replayed from it (see
    /// [`Journal`]). Tool calls of one step run one at a time.
    pub async fn run_journaled(
        &mut self,
        prompt: impl Into<String>,
        journal: &dyn Journal,
    ) -> Result<RunOutput, RunError> {
        self.run_inner(prompt.into(), Some(journal)).await
    }

    async fn run_inner(
        &mut self,
        prompt: String,
        journal: Option<&dyn Journal>,
    ) -> Result<RunOutput, RunError> {
        let span = tracing::info_span!(
            "hookwire.run",
            agent = %self.agent.config().name,
            correlation_id = %self.scope.correlation_id(),
        );
        let mut prompt = prompt;
        async move {
            if self.pending.is_some() {
                return Err(RunError::Paused);
            }
            self.trace.clear();
            self.usage = Usage::default();
            self.steps = 0;
            self.forced = 0;
            // Approvals waiting from a run that ended without pausing (a
            // stop in the same step) belong to no call any more: drop them,
            // so that a later call that reuses an id is not taken for one.
            self.approvals.clear_waiting();
            if !self.agent.config().use_history {
                Arc::make_mut(&mut self.history).clear();
            }
            let agent_name = self.agent.config().name.clone();
            let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
            let flow = caught(
                "execution_start",
                hooks.execution_start(&mut ExecutionStart {
                    agent: &agent_name,
                    correlation_id: self.scope.correlation_id(),
                    history: Arc::make_mut(&mut self.history),
                }),
            )
            .await
            .unwrap_or_else(|m| {
                Flow::Stop(format!("a lifecycle hook panicked in execution_start: {m}"))
            });
            if let Flow::Stop(reason) = flow {
                drop(hooks);
                return self.finish_stopped("execution_start", reason, None).await;
            }
            let flow = caught(
                "user_prompt_submit",
                hooks.user_prompt_submit(&mut PromptSubmit {
                    agent: &agent_name,
                    prompt: &mut prompt,
                }),
            )
            .await
            .unwrap_or_else(|m| {
                Flow::Stop(format!(
                    "a lifecycle hook panicked in user_prompt_submit: {m}"
                ))
            });
            drop(hooks);
            if let Flow::Stop(reason) = flow {
                return self
                    .finish_stopped("user_prompt_submit", reason, None)
                    .await;
            }
            for text in self.agent.warnings() {
                tracing::warn!(
                    target: "hookwire::audit",
                    agent = %agent_name,
                    warning = %text,
                    "agent warning"
                );
                self.trace.push(TraceEvent::Warning { text });
            }
            self.trace.push(TraceEvent::Prompt {
                text: prompt.clone(),
            });
            Arc::make_mut(&mut self.history).push(Message::user(prompt));
            if let Err(e) = self.inject(HookEvent::OnRequestStart, journal).await {
                return self.fail(e.into()).await;
            }
            self.drive(None, journal).await
        }
        .instrument(span)
        .await
    }

    /// Resumes a run paused for approval, once every pending call has a
    /// decision ([`Approvals::resolve`]).
    pub async fn resume(&mut self) -> Result<RunOutput, RunError> {
        self.resume_inner(None).await
    }

    /// [`resume`](Self::resume) with a journal, as
    /// [`run_journaled`](Self::run_journaled).
    pub async fn resume_journaled(&mut self, journal: &dyn Journal) -> Result<RunOutput, RunError> {
        self.resume_inner(Some(journal)).await
    }

    async fn resume_inner(&mut self, journal: Option<&dyn Journal>) -> Result<RunOutput, RunError> {
        let span = tracing::info_span!(
            "hookwire.run",
            agent = %self.agent.config().name,
            correlation_id = %self.scope.correlation_id(),
            resumed = true,
        );
        async move {
            let Some(pending) = self.pending.take() else {
                return Err(RunError::NotPaused);
            };
            let waiting = self.approvals.pending().len();
            if waiting > 0 {
                self.pending = Some(pending);
                return Err(RunError::StillPending(waiting));
            }
            self.trace.clear();
            self.drive(Some(pending), journal).await
        }
        .instrument(span)
        .await
    }

    async fn inject(
        &mut self,
        event: HookEvent,
        journal: Option<&dyn Journal>,
    ) -> Result<(), JournalError> {
        let hooks: Vec<_> = self
            .agent
            .config()
            .request_hooks
            .iter()
            .filter(|h| h.event == event)
            .cloned()
            .collect();
        if let (Some(journal), false) = (journal, hooks.is_empty()) {
            // The injections' tool calls are side effects too: one step
            // records what they did to the history (and the TTL expiry in
            // it, a wall-clock time that holds across restarts).
            let mut history = self.history.to_vec();
            let name = format!("inject {event:?}");
            let this = &*self;
            let effect = async move {
                let mut traces = Vec::new();
                let mut counter = this.injections;
                for hook in &hooks {
                    counter += 1;
                    let action = run_injection(
                        hook,
                        this.agent.tools(),
                        &this.scope,
                        &mut history,
                        &*this.clock,
                        counter,
                    )
                    .await;
                    traces.push(TraceEvent::Injection {
                        tool: hook.resolve_name(this.agent.tools()),
                        action,
                    });
                }
                serde_json::to_value((history, traces, counter)).unwrap_or(Value::Null)
            };
            let value = journal.step(&name, effect.boxed()).await?;
            let (history, traces, counter): (Vec<Message>, Vec<TraceEvent>, u64) =
                serde_json::from_value(value).map_err(|e| JournalError::new(&name, e.to_string()))?;
            self.history = Arc::new(history);
            self.trace.extend(traces);
            self.injections = counter;
            return Ok(());
        }
        for hook in hooks {
            self.injections += 1;
            let action = run_injection(
                &hook,
                self.agent.tools(),
                &self.scope,
                Arc::make_mut(&mut self.history),
                &*self.clock,
                self.injections,
            )
            .await;
            self.trace.push(TraceEvent::Injection {
                tool: hook.resolve_name(self.agent.tools()),
                action,
            });
        }
        Ok(())
    }

    async fn drive(
        &mut self,
        mut resumed: Option<PendingStep>,
        journal: Option<&dyn Journal>,
    ) -> Result<RunOutput, RunError> {
        let agent_name = self.agent.config().name.clone();
        let definitions = self.agent.tools().definitions();
        loop {
            let (step, response, calls, mut results, started, step_span) = match resumed.take() {
                Some(p) => {
                    let span = tracing::info_span!(
                        "hookwire.step",
                        agent = %agent_name,
                        step = p.step,
                        resumed = true
                    );
                    (p.step, p.response, p.calls, p.results, Instant::now(), span)
                }
                None => {
                    if self.steps >= self.settings.max_steps {
                        return self.fail(RunError::StepLimit(self.steps)).await;
                    }
                    let step = self.steps;
                    self.steps += 1;
                    let started = Instant::now();
                    let step_span = tracing::info_span!("hookwire.step", agent = %agent_name, step);
                    let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
                    let flow = caught(
                        "step_start",
                        hooks.step_start(&mut StepStart {
                            agent: &agent_name,
                            step,
                            history: Arc::make_mut(&mut self.history),
                        }),
                    )
                    .await
                    .unwrap_or_else(|m| {
                        Flow::Stop(format!("a lifecycle hook panicked in step_start: {m}"))
                    });
                    drop(hooks);
                    if let Flow::Stop(reason) = flow {
                        return self.finish_stopped("step_start", reason, None).await;
                    }
                    let request = ModelRequest::new(
                        &agent_name,
                        &self.agent.config().instruction,
                        &self.history,
                        &definitions,
                    );
                    let (answer, elapsed_us) = match journal {
                        None => {
                            let answer = self
                                .model
                                .complete(request)
                                .instrument(step_span.clone())
                                .await;
                            (answer, micros(started.elapsed()))
                        }
                        Some(journal) => {
                            // The request is made inside the step: a replay
                            // does not even call the model.
                            let model = &self.model;
                            let complete = async move { model.complete(request).await }.boxed();
                            let name = format!("model {step}");
                            match journaled(journal, &name, started, complete).await {
                                Ok(answer) => answer,
                                Err(e) => return self.fail(e.into()).await,
                            }
                        }
                    };
                    let mut response = match answer {
                        Ok(r) => r,
                        Err(e) => return self.fail(RunError::Model(e)).await,
                    };
                    unique_call_ids(step, &mut response.tool_calls);
                    self.usage += response.usage;
                    self.trace.push(TraceEvent::Model {
                        step,
                        text: response.text.clone(),
                        tool_calls: response.tool_calls.iter().map(|c| c.name.clone()).collect(),
                        elapsed_us,
                    });
                    if response.tool_calls.is_empty() {
                        Arc::make_mut(&mut self.history)
                            .push(Message::assistant(response.text.clone()));
                        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
                        let decision = caught(
                            "stop",
                            hooks.stop(&StopEvent {
                                agent: &agent_name,
                                answer: &response.text,
                                step,
                                forced_continues: self.forced,
                            }),
                        )
                        .await
                        .unwrap_or(StopDecision::Allow);
                        let _ = caught(
                            "step_end",
                            hooks.step_end(&StepEnd {
                                agent: &agent_name,
                                step,
                                response: &response,
                                tool_results: &[],
                                elapsed: started.elapsed(),
                            }),
                        )
                        .await;
                        drop(hooks);
                        match decision {
                            StopDecision::Continue(message)
                                if self.forced < self.settings.max_forced_continues =>
                            {
                                self.forced += 1;
                                self.trace.push(TraceEvent::Hook {
                                    event: "stop".into(),
                                    decision: "continue".into(),
                                    reason: message.clone(),
                                });
                                Arc::make_mut(&mut self.history).push(Message::user(message));
                                continue;
                            }
                            StopDecision::Continue(message) => {
                                tracing::warn!(
                                    target: "hookwire::audit",
                                    agent = %agent_name,
                                    reason = %message,
                                    "stop hook wanted to continue past the loop guard; ending the run"
                                );
                            }
                            _ => {}
                        }
                        if let Err(e) = self.inject(HookEvent::OnCompletion, journal).await {
                            return self.fail(e.into()).await;
                        }
                        return self.finish(RunStatus::Completed, response.text).await;
                    }
                    Arc::make_mut(&mut self.history).push(Message::assistant_calls(
                        response.text.clone(),
                        response.tool_calls.clone(),
                    ));
                    let calls = response.tool_calls.clone();
                    let results = vec![None; calls.len()];
                    (step, response, calls, results, started, step_span)
                }
            };

            // An imported state may be inconsistent: one slot per call.
            results.resize(calls.len(), None);
            // Run the calls that have no result yet, concurrently, in order.
            let parent = Arc::new(ParentRun {
                history: self.history.clone(),
                model: self.model.clone(),
                merged: Mutex::new(Vec::new()),
                children: self.children.clone(),
            });
            let todo: Vec<(usize, ToolCall)> = calls
                .iter()
                .enumerate()
                .filter(|(i, _)| results[*i].is_none())
                .map(|(i, c)| (i, c.clone()))
                .collect();
            let records: Vec<(usize, Result<CallRecord, JournalError>)> = {
                let this = &*self;
                // Under a journal the calls run one at a time: the order of
                // their steps must be the same on every replay.
                let max = match journal {
                    Some(_) => 1,
                    None => this.settings.max_parallel.max(1),
                };
                let parent = &parent;
                PARENT
                    .scope(
                        parent.clone(),
                        futures_util::stream::iter(todo)
                            .map(|(i, call)| async move {
                                let record = match journal {
                                    None => Ok(this.run_call(step, call).await),
                                    Some(journal) => {
                                        this.journaled_call(journal, parent, step, call).await
                                    }
                                };
                                (i, record)
                            })
                            .buffered(max)
                            .collect(),
                    )
                    .instrument(step_span)
                    .await
            };
            let records = match records
                .into_iter()
                .map(|(i, r)| r.map(|r| (i, r)))
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(records) => records,
                Err(e) => return self.fail(e.into()).await,
            };
            // The step's calls are done: release the parent's view of the
            // history, so that appending to it below copies nothing.
            let merged = std::mem::take(&mut *lock(&parent.merged));
            drop(parent);
            let mut stopped: Option<(String, Option<String>)> = None;
            let mut paused = false;
            for (i, record) in records {
                if record.pending {
                    paused = true;
                } else {
                    results[i] = Some(record.result.clone());
                }
                if stopped.is_none() {
                    stopped = record.stopped.clone();
                }
                self.trace.push(record.trace);
            }
            if paused && stopped.is_none() {
                let pending = self.approvals.pending();
                self.pending = Some(PendingStep {
                    step,
                    response,
                    calls,
                    results,
                });
                return self
                    .finish(RunStatus::Paused { pending }, String::new())
                    .await;
            }
            let mut tool_messages = Vec::with_capacity(calls.len());
            for (call, result) in calls.iter().zip(results) {
                let result = result.unwrap_or_else(|| {
                    ToolResult::error(format!("tool call denied: {PENDING_REASON}"))
                });
                tool_messages.push(Message::tool(call.id.clone(), call.name.clone(), result));
            }
            Arc::make_mut(&mut self.history).extend(tool_messages.iter().cloned());
            Arc::make_mut(&mut self.history).extend(merged);
            let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
            let _ = caught(
                "step_end",
                hooks.step_end(&StepEnd {
                    agent: &agent_name,
                    step,
                    response: &response,
                    tool_results: &tool_messages,
                    elapsed: started.elapsed(),
                }),
            )
            .await;
            drop(hooks);
            if let Some((reason, hook)) = stopped {
                return self.finish_stopped("pre_tool_use", reason, hook).await;
            }
        }
    }

    async fn run_call(&self, step: usize, call: ToolCall) -> CallRecord {
        let agent_name = self.scope.agent();
        let source = guess_source(&call.name);
        let span = tracing::info_span!(
            "hookwire.tool_call",
            agent = agent_name,
            tool = %call.name,
            source = source.as_str(),
            tool_use_id = %call.id,
            decision = tracing::field::Empty,
            hook = tracing::field::Empty,
        );
        let started = Instant::now();
        async move {
            let ToolCall {
                id,
                name,
                mut arguments,
            } = call;
            let sent = arguments.to_value().unwrap_or(Value::Null);
            let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
            let mut cx = PreToolUse {
                agent: agent_name,
                tool: &name,
                source,
                tool_use_id: &id,
                args: &mut arguments,
                step,
                decided_by: None,
            };
            let (mut decision, mut decided_by) =
                match caught("pre_tool_use", decide(&hooks, &mut cx)).await {
                    Ok(decision) => (decision, cx.decided_by.map(str::to_owned)),
                    Err(m) => (
                        Decision::Deny(format!("a lifecycle hook panicked in pre_tool_use: {m}")),
                        Some("lifecycle".to_owned()),
                    ),
                };
            if decision == Decision::Continue && self.approvals.is_required(&name) {
                decision = Decision::Ask(format!("`{name}` needs approval"));
                decided_by = Some("approval_settings".to_owned());
            }
            let mut pending = false;
            let outcome: Outcome = match decision {
                Decision::Continue => {
                    self.dispatch(ToolCall::new(id.clone(), name.clone(), arguments.clone()))
                        .await
                }
                Decision::Deny(reason) => Err(ToolError::Denied {
                    reason,
                    hook: decided_by.clone().map(Into::into),
                }),
                Decision::Stop(reason) => Err(ToolError::Stopped {
                    reason,
                    hook: decided_by.clone().map(Into::into),
                }),
                Decision::Ask(reason) => {
                    let answer = self
                        .approvals
                        .decide(ApprovalRequest {
                            agent: agent_name,
                            tool: &name,
                            tool_use_id: &id,
                            arguments: &arguments,
                            reason: &reason,
                        })
                        .await;
                    match answer {
                        ApprovalDecision::Approve => {
                            self.dispatch(ToolCall::new(
                                id.clone(),
                                name.clone(),
                                arguments.clone(),
                            ))
                            .await
                        }
                        ApprovalDecision::Deny(why) => Err(ToolError::Denied {
                            reason: why,
                            hook: Some("approver".into()),
                        }),
                    }
                }
            };
            let mut outcome = outcome;
            if self.approvals.is_pending(&id) {
                pending = true;
            }
            let call = ToolCall::new(id.clone(), name.clone(), arguments);
            let failed = !matches!(&outcome, Ok(r) if !r.is_error);
            {
                let mut post = PostToolUse {
                    agent: agent_name,
                    call: &call,
                    source,
                    outcome: &mut outcome,
                    elapsed: started.elapsed(),
                };
                if pending {
                } else if failed {
                    let _ = caught("post_tool_failure", hooks.post_tool_failure(&mut post)).await;
                } else {
                    let _ = caught("post_tool_use", hooks.post_tool_use(&mut post)).await;
                }
            }
            let (label, hook) = match &outcome {
                _ if pending => ("pending", Some("approver".to_owned())),
                Ok(r) if r.is_error => ("error", None),
                Ok(_) => ("allowed", None),
                Err(e) => (
                    match e.kind() {
                        "denied" => "denied",
                        "stopped" => "stopped",
                        _ => "error",
                    },
                    e.hook().map(str::to_owned).or(decided_by.clone()),
                ),
            };
            let stopped = match &outcome {
                Err(e @ ToolError::Stopped { reason, .. }) => {
                    Some((reason.clone(), e.hook().map(str::to_owned)))
                }
                _ => None,
            };
            let span = tracing::Span::current();
            span.record("decision", label);
            if let Some(h) = &hook {
                span.record("hook", h.as_str());
            }
            tracing::info!(
                target: "hookwire::audit",
                agent = agent_name,
                tool = %call.name,
                source = source.as_str(),
                tool_use_id = %call.id,
                correlation_id = %self.scope.correlation_id(),
                decision = label,
                hook = hook.as_deref(),
                elapsed_us = micros(started.elapsed()),
                "agent tool call"
            );
            let result = into_result(outcome);
            // What the tool received, if it ran and got something else than
            // the model sent.
            let received = self
                .scope
                .call_log()
                .and_then(|log| log.take(&call.id))
                .filter(|received| *received != sent);
            let hooks = self
                .agent
                .hooks_for(&call.name, source)
                .into_iter()
                .map(str::to_owned)
                .collect();
            CallRecord {
                trace: TraceEvent::ToolCall {
                    step,
                    id: call.id.clone(),
                    tool: call.name.clone(),
                    source,
                    arguments: sent,
                    received,
                    hooks,
                    decision: label.to_owned(),
                    hook,
                    result: result.clone(),
                    elapsed_us: micros(started.elapsed()),
                },
                result,
                pending,
                stopped,
            }
        }
        .instrument(span)
        .await
    }

    /// [`run_call`](Self::run_call) as one journaled step. What the call
    /// did to the session besides its record (the approvals' pending calls
    /// and decisions, a child's kept history, a child's messages for the
    /// parent's history) is recorded with it and restored on a replay.
    async fn journaled_call(
        &self,
        journal: &dyn Journal,
        parent: &ParentRun,
        step: usize,
        call: ToolCall,
    ) -> Result<CallRecord, JournalError> {
        let name = format!("tool {} {}", call.name, call.id);
        let effect = async {
            let record = self.run_call(step, call).await;
            let merged = std::mem::take(&mut *lock(&parent.merged));
            let children = lock(&self.children).clone();
            let entry = (record, self.approvals.state(), children, merged);
            serde_json::to_value(entry).unwrap_or(Value::Null)
        };
        let value = journal.step(&name, effect.boxed()).await?;
        let (record, approvals, children, merged): (
            CallRecord,
            ApprovalState,
            ChildHistories,
            Vec<Message>,
        ) = serde_json::from_value(value).map_err(|e| JournalError::new(&name, e.to_string()))?;
        self.approvals.replace_state(approvals);
        *lock(&self.children) = children;
        lock(&parent.merged).extend(merged);
        Ok(record)
    }

    /// Runs one call through the agent's tool set, within the run's
    /// `tool_call_timeout` if it has one.
    fn dispatch(&self, call: ToolCall) -> BoxFuture<'_, Outcome> {
        let Some(after) = self.settings.tool_call_timeout else {
            return dispatch_boxed(self.agent.tools(), &self.scope, call);
        };
        let what = format!("tool call `{}`", call.name);
        let call = dispatch_boxed(self.agent.tools(), &self.scope, call);
        async move {
            match tokio::time::timeout(after, call).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    tracing::warn!(target: "hookwire::audit", what, ?after, "tool call timed out");
                    Err(ToolError::TimedOut { what, after })
                }
            }
        }
        .boxed()
    }

    async fn finish_stopped(
        &mut self,
        event: &str,
        reason: String,
        hook: Option<String>,
    ) -> Result<RunOutput, RunError> {
        self.trace.push(TraceEvent::Hook {
            event: event.to_owned(),
            decision: "stop".into(),
            reason: reason.clone(),
        });
        self.finish(RunStatus::Stopped { reason, hook }, String::new())
            .await
    }

    async fn finish(&mut self, status: RunStatus, text: String) -> Result<RunOutput, RunError> {
        let shown = match &status {
            RunStatus::Stopped { reason, .. } => reason.clone(),
            _ => text.clone(),
        };
        self.trace.push(TraceEvent::Finished {
            status: status.as_str().to_owned(),
            text: shown,
        });
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        let _ = caught(
            "execution_end",
            hooks.execution_end(&ExecutionEnd {
                agent: self.scope.agent(),
                status: status.as_str(),
                history: &self.history,
                steps: self.steps,
            }),
        )
        .await;
        drop(hooks);
        Ok(RunOutput {
            status,
            text,
            trace: self.trace.clone(),
            usage: self.usage,
            steps: self.steps,
        })
    }

    async fn fail(&mut self, error: RunError) -> Result<RunOutput, RunError> {
        tracing::warn!(
            target: "hookwire::audit",
            agent = %self.scope.agent(),
            error = %error,
            "agent run failed"
        );
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        let _ = caught(
            "agent_failed",
            hooks.agent_failed(&AgentFailed {
                agent: self.scope.agent(),
                error: &error,
            }),
        )
        .await;
        let _ = caught(
            "execution_end",
            hooks.execution_end(&ExecutionEnd {
                agent: self.scope.agent(),
                status: "failed",
                history: &self.history,
                steps: self.steps,
            }),
        )
        .await;
        Err(error)
    }
}

/// Runs a lifecycle hook; a panic becomes `Err(message)`, logged, so that a
/// hook never takes the run (or the process) down.
/// Dispatches `call` through `tools`, as a boxed future: how the loop (and
/// request-start injection) runs every tool call.
///
/// One allocation per call the loop makes, which allocates per call anyway
/// (the call's record, its result text). The chain inside the tool set stays
/// one nested type with no allocation; the box keeps the run's future from
/// containing the chain's by value, which would add the two depths: with a
/// deep chain (16 hooks) under the loop (and a child agent's loop inside
/// that) the run's future type would pass rustc's query depth limit.
pub(crate) fn dispatch_boxed<'a, T: ToolSet + ?Sized>(
    tools: &'a T,
    scope: &'a CallScope,
    call: ToolCall,
) -> BoxFuture<'a, Outcome> {
    tools.dispatch(scope, call).boxed()
}

async fn caught<T>(event: &'static str, fut: impl Future<Output = T>) -> Result<T, String> {
    match std::panic::AssertUnwindSafe(fut).catch_unwind().await {
        Ok(value) => Ok(value),
        Err(payload) => {
            let message = crate::error::panic_message(&*payload);
            tracing::error!(
                target: "hookwire::audit",
                event,
                error = %message,
                "lifecycle hook panicked"
            );
            Err(message)
        }
    }
}

/// Runs `effect` (a model request) as one journaled step; its answer and
/// the step's time since `started` (recorded, so that a replay traces the
/// same time).
async fn journaled(
    journal: &dyn Journal,
    name: &str,
    started: Instant,
    effect: BoxFuture<'_, Result<ModelResponse, ModelError>>,
) -> Result<(Result<ModelResponse, ModelError>, u64), JournalError> {
    let effect = async move {
        let answer = effect.await;
        serde_json::to_value((answer, micros(started.elapsed()))).unwrap_or(Value::Null)
    };
    let value = journal.step(name, effect.boxed()).await?;
    serde_json::from_value(value).map_err(|e| JournalError::new(name, e.to_string()))
}

#[derive(Serialize, Deserialize)]
struct CallRecord {
    trace: TraceEvent,
    result: ToolResult,
    pending: bool,
    stopped: Option<(String, Option<String>)>,
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Makes the call ids of one model answer unique, as they arrive: an empty
/// id becomes `call_<step>_<index>`, and an id used by an earlier call of
/// the same answer gets `_<index>` appended (again until it is free). The
/// loop identifies calls by these ids (their results, their approvals), so
/// an id the model repeats must never make one call run for another. The
/// history keeps the ids as rewritten, so the model reads each result
/// against the call it belongs to.
fn unique_call_ids(step: usize, calls: &mut [ToolCall]) {
    let mut seen = std::collections::HashSet::with_capacity(calls.len());
    for (index, call) in calls.iter_mut().enumerate() {
        if call.id.is_empty() {
            call.id = format!("call_{step}_{index}");
        }
        while !seen.insert(call.id.clone()) {
            call.id = format!("{}_{index}", call.id);
        }
    }
}

/// The source of a tool by its name, as the loop sees it: `agent__*` is an
/// agent, `server__tool` an MCP tool, anything else a function tool.
pub fn guess_source(name: &str) -> ToolSource {
    if name.starts_with("agent__") {
        ToolSource::Agent
    } else if name.contains("__") {
        ToolSource::Mcp
    } else {
        ToolSource::Function
    }
}

impl<A: AgentDecl> AgentDecl for Arc<A> {
    type Tools = A::Tools;

    fn config(&self) -> &super::decl::AgentConfig {
        (**self).config()
    }

    fn tools(&self) -> &Self::Tools {
        (**self).tools()
    }

    fn lifecycle_hooks(&self) -> impl LifecycleHooks {
        (**self).lifecycle_hooks()
    }

    fn call_dynamic<C: crate::hook::Handler>(
        &self,
        cx: &mut crate::context::ToolContext,
        args: crate::call::ToolArgs,
        inner: &C,
    ) -> impl std::future::Future<Output = crate::call::Outcome> + Send {
        (**self).call_dynamic(cx, args, inner)
    }

    fn hooks_selecting_none(&self, tools: &[(&str, ToolSource)]) -> Vec<(&'static str, String)> {
        (**self).hooks_selecting_none(tools)
    }

    fn warnings(&self) -> Vec<String> {
        (**self).warnings()
    }

    fn hooks_for(&self, tool: &str, source: ToolSource) -> Vec<&'static str> {
        (**self).hooks_for(tool, source)
    }
}
