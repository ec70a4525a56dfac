//! The agent loop, by concern:
//!
//! * this file: [`Runner`], its builders and accessors, `run` and `resume`;
//! * `step.rs`: the loop (`drive`), one step at a time: ask the model, run
//!   the step's calls, append their results, end the run;
//! * `call.rs`: one tool call, from the lifecycle `pre_tool_use` hooks to
//!   its trace record;
//! * `trace.rs`: what a run returns ([`RunOutput`], [`RunStatus`],
//!   [`TraceEvent`]);
//! * `events.rs`: a run as a stream of events ([`Runner::stream`],
//!   [`RunEvent`]), and the one place a trace event is recorded;
//! * `state.rs`: the resumable state ([`RunState`]) and its import/export;
//! * `parent.rs`: what a run shares with the child agents it calls;
//! * `journaled.rs`: the steps recorded under a [`Journal`];
//! * `error.rs`: [`RunError`].

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use serde::{Deserialize, Serialize};
use tracing::Instrument;

use super::decl::Agent;
use super::inject::{Clock, HookEvent};
use super::journal::Journal;
use super::lifecycle::{ExecutionStart, Flow, LifecycleHooks, PromptSubmit};
use crate::approval::{Approvals, Asker};
use crate::context::ToolSource;
use crate::lock;
use crate::model::{Message, Model, Usage};
use crate::scope::CallScope;

mod call;
mod error;
mod events;
mod genai;
mod journaled;
mod link;
mod output;
mod parent;
mod state;
mod step;
mod trace;

pub use error::RunError;
pub(crate) use events::EventTx;
pub use events::{EventKind, RunEvent, RunStream};
pub(crate) use journaled::{CALL_STARTED, expired, remaining};
pub(crate) use link::{LinkExt, SessionLink};
pub use output::{TypedAgent, TypedOutput};
pub use parent::PausedChild;
pub(crate) use parent::{Budget, ChildHistories, PARENT, PausedChildren};
pub use state::{PendingStep, RunState, STATE_VERSION, StateError};
pub use trace::{RunOutput, RunStatus, ToolCallEvent, TraceEvent, TraceLines};

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
    /// and answered with an error result,
    /// [`ToolError::TimedOut`](crate::error::ToolError::TimedOut) naming the
    /// tool (`tool call `x` timed out after 30000 ms`); the run goes on and
    /// the model reads the error. A hook's own, shorter timeout still fires
    /// first and follows that hook's failure policy. Waiting for an
    /// approval is not part of the call and is not limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_timeout: Option<Duration>,
    /// How a model call that failed with a transport error, a 429 or a 5xx
    /// is asked again (default: 3 retries, 500 ms doubling up to 30 s,
    /// jittered, `Retry-After` honoured); each retry is a
    /// [`TraceEvent::ModelRetry`].
    #[serde(default)]
    pub model_retry: crate::model::RetryPolicy,
    /// How many tokens (input and output, of the run's model calls and
    /// those of every child agent it calls) a run may use, `None` for no
    /// limit (the default). Once they are used up, the run ends before its
    /// next model call (or a child's) with [`RunError::UsageLimit`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_limit: Option<u64>,
    /// How often a typed run ([`Runner::run_typed`], an agent with an
    /// output schema) asks again when the model's answer does not match
    /// the schema, sending it the error (default 2); past it the run fails
    /// with [`RunError::OutputInvalid`].
    #[serde(default = "default_output_retries")]
    pub output_retries: usize,
}

fn default_output_retries() -> usize {
    2
}

impl Default for RunSettings {
    fn default() -> Self {
        Self {
            max_steps: 20,
            max_parallel: 8,
            max_forced_continues: 3,
            tool_call_timeout: None,
            model_retry: crate::model::RetryPolicy::default(),
            usage_limit: None,
            output_retries: default_output_retries(),
        }
    }
}

/// Runs an agent: user message -> model -> tool calls -> model ... until a
/// final answer, a stop, a pause for approval, or the step limit.
///
/// It holds the agent, the model, the history, the approvals, extra
/// lifecycle hooks `H` (run after the agent's own) and the correlation id.
///
/// ```
/// use hookwire::agent::{AgentConfig, Agent, Runner};
/// use hookwire::{model::ScriptedModel, model::Turn};
/// use hookwire::{FnTool, Json, Router, ToolHandler, toolset::RouterEnd, toolset::RouterEntry};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Add { a: i64, b: i64 }
///
/// struct Calc<T> { config: AgentConfig, tools: T }
/// impl<T: hookwire::ToolSet + 'static> Agent for Calc<T> {
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
pub struct Runner<A: Agent, H = ()> {
    agent: A,
    model: Arc<dyn Model>,
    hooks: H,
    approvals: Approvals,
    scope: CallScope,
    history: Arc<Vec<Message>>,
    /// What the session's calls share (the call log, the child-agent
    /// maps): the run's channel. It stays when the approvals are replaced.
    session: Arc<SessionLink>,
    forced: usize,
    settings: RunSettings,
    /// The clock of TTL injections; `None` is the system clock (nothing
    /// allocated for it).
    clock: Option<Arc<dyn Clock>>,
    pending: Option<PendingStep>,
    steps: usize,
    usage: Usage,
    /// The tokens of the child agents this run called, by agent path.
    child_usage: BTreeMap<String, Usage>,
    trace: Arc<Vec<TraceEvent>>,
    injections: u64,
    /// The tools not offered in the current step (their availability
    /// said no): a call to one is refused. Empty, and allocation-free, for
    /// an agent whose tools are always available.
    unavailable: Vec<String>,
    /// The output schema of the run, when it is typed.
    typed: output::Typed,
}

impl<A: Agent, H> fmt::Debug for Runner<A, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("agent", &self.agent.config().name)
            .field("model", &self.model.name())
            .field("history", &self.history.len())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The events a run's trace has room for when it starts.
const TRACE_ROOM: usize = 8;

/// A fresh correlation id: 64 random bits (from the standard library's
/// per-instance random hash keys, mixed with the clock's nanoseconds), so
/// that no counter is shared between sessions.
fn fresh_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    // The low 64 bits of the time are what differs between two sessions
    // (one round of the hash, not two).
    h.write_u64(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    );
    h.finish()
}

/// `<agent>-<id as 16 hex digits>`: a new session's correlation id, written
/// without the formatting machinery (which cost a tenth of an answer-only
/// session).
fn correlation_id(agent: &str, id: u64) -> Arc<str> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    /// `-` and the 16 hex digits of `id`, into `tail` (17 bytes).
    fn write_tail(tail: &mut [u8], id: u64) {
        tail[0] = b'-';
        for (i, digit) in tail[1..].iter_mut().enumerate() {
            *digit = HEX[((id >> ((15 - i) * 4)) & 0xf) as usize];
        }
    }
    // Written in place when the name is short: one allocation, the `Arc`,
    // and the text checked once.
    let mut buf = [0u8; 96];
    match buf.get_mut(..agent.len() + 17) {
        Some(out) => {
            out[..agent.len()].copy_from_slice(agent.as_bytes());
            write_tail(&mut out[agent.len()..], id);
            Arc::from(std::str::from_utf8(out).unwrap_or_default())
        }
        None => {
            let mut tail = [0u8; 17];
            write_tail(&mut tail, id);
            Arc::from([agent, std::str::from_utf8(&tail).unwrap_or_default()].concat())
        }
    }
}

impl<A: Agent> Runner<A, ()> {
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
        // One block holds the approvals, the approver, the call log and the
        // child-agent maps: one allocation for them all.
        let session = Arc::new(SessionLink::default());
        let scope = CallScope::for_run(
            name.clone(),
            correlation_id(&name, id),
            approvals.approver(),
            session.clone(),
        );
        Self {
            agent,
            model,
            hooks: (),
            approvals,
            scope,
            history: Arc::default(),
            session,
            forced: 0,
            settings,
            clock: None,
            pending: None,
            steps: 0,
            usage: Usage::default(),
            child_usage: BTreeMap::new(),
            trace: Arc::default(),
            injections: 0,
            unavailable: Vec::new(),
            typed: output::Typed::default(),
        }
    }
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Adds lifecycle hooks, run after the agent's own hooks. A hook with a
    /// failure policy or a timeout is a
    /// [`LifecycleGuard`](super::lifecycle::LifecycleGuard):
    /// `with_hooks(LifecycleGuard::new(Audit).with_timeout(..))`.
    pub fn with_hooks<H2: LifecycleHooks>(self, hooks: H2) -> Runner<A, H2> {
        Runner {
            agent: self.agent,
            model: self.model,
            hooks,
            approvals: self.approvals,
            scope: self.scope,
            history: self.history,
            session: self.session,
            forced: self.forced,
            settings: self.settings,
            clock: self.clock,
            pending: self.pending,
            steps: self.steps,
            usage: self.usage,
            child_usage: self.child_usage,
            trace: self.trace,
            injections: self.injections,
            unavailable: self.unavailable,
            typed: self.typed,
        }
    }

    /// Uses `asker` for approvals (keeping the approval state).
    pub fn with_asker(self, asker: impl Asker + 'static) -> Self {
        let state = self.approvals.state();
        self.with_approvals(Approvals::new(asker).with_state(state))
    }

    /// Uses these approvals (their state is shared with the caller's clone).
    pub fn with_approvals(mut self, approvals: Approvals) -> Self {
        self.scope.set_approver(Some(approvals.approver()));
        self.approvals = approvals;
        self
    }

    /// Takes what a child's session inherits from the call `cx` that runs
    /// it: its place in the run tree (the parent's call is the last of its
    /// path), the session values, and the approvals. Inside a parent run the
    /// child shares the parent's [`Approvals`] (their settings, sticky
    /// decisions and pending calls, scoped by path); outside one, its
    /// chains consult the call's approver.
    pub(crate) fn inherit_scope(
        &mut self,
        cx: &crate::context::ToolContext,
        parent: Option<Approvals>,
    ) {
        let scope = cx.scope();
        let path: Arc<[crate::approval::CallSite]> = scope
            .path()
            .iter()
            .cloned()
            .chain([scope.site(cx.tool_use_id())])
            .collect();
        self.scope.set_path(path);
        self.scope.set_run(scope.run());
        *self.scope.session_mut() = scope.session().clone();
        // The child's events go where its parent's do, and its model calls
        // count against its parent's usage limit.
        self.scope.set_run_link(
            &self.session,
            scope.events().cloned(),
            scope.budget().cloned(),
        );
        match parent {
            Some(approvals) => {
                self.scope.set_approver(Some(approvals.approver()));
                self.approvals = approvals;
            }
            None => {
                if let Some(approver) = scope.approver() {
                    self.scope.set_approver(Some(approver.clone()));
                }
            }
        }
    }

    /// Drops what waits in this run and below it (pending calls, unused
    /// decisions, paused child runs): a run that starts, or a step that
    /// ended, leaves nothing a later call could be taken for.
    fn forget_waiting(&mut self) {
        self.approvals.forget_within(&self.scope);
        lock(&self.session.paused).clear();
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

    /// Sets how failed model calls are retried (see
    /// [`RunSettings::model_retry`]).
    pub fn with_model_retry(mut self, policy: crate::model::RetryPolicy) -> Self {
        self.settings.model_retry = policy;
        self
    }

    /// Limits the tokens the run (with the child agents it calls) may use
    /// (see [`RunSettings::usage_limit`]).
    pub fn with_usage_limit(mut self, tokens: u64) -> Self {
        self.settings.usage_limit = Some(tokens);
        self
    }

    /// Sets the correlation id.
    pub fn with_correlation_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.scope.set_correlation_id(id);
        self
    }

    /// Sets the clock (for TTL injections).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
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

    /// The histories this session keeps for its child agents
    /// (`history_merge_target: child`), by tool name.
    pub fn child_histories(&self) -> BTreeMap<String, Vec<Message>> {
        lock(&self.session.children).clone()
    }

    /// Whether the run is paused for approval.
    pub fn is_paused(&self) -> bool {
        self.pending.is_some()
    }

    /// Runs one user message to the end.
    pub async fn run(&mut self, prompt: impl Into<String>) -> Result<RunOutput, RunError> {
        self.run_inner(prompt.into(), None, None).await
    }

    /// [`run`](Self::run) with each model request, tool call and round of
    /// injections recorded in `journal` as one step, or replayed from it
    /// (see [`Journal`]). Tool calls of one step run concurrently in groups
    /// of `max_parallel` ([`Journal::steps`]), each recorded on its own.
    pub async fn run_journaled(
        &mut self,
        prompt: impl Into<String>,
        journal: &dyn Journal,
    ) -> Result<RunOutput, RunError> {
        self.run_inner(prompt.into(), Some(journal), None).await
    }

    /// The span of a run (`resumed` or not): `hookwire.run`, with
    /// OpenTelemetry's `invoke_agent` names under the feature `otel`.
    fn run_span(&self, resumed: bool) -> tracing::Span {
        tracing::info_span!(
            "hookwire.run",
            agent = %self.agent.config().name,
            correlation_id = %self.scope.correlation_id(),
            resumed = resumed.then_some(true),
            // OpenTelemetry's names (feature `otel`; see `genai`).
            otel.name = genai::on(|| format!("invoke_agent {}", self.agent.config().name)),
            otel.kind = genai::INTERNAL,
            otel.status_code = tracing::field::Empty,
            gen_ai.operation.name = genai::INVOKE_AGENT,
            gen_ai.agent.name = genai::on(|| &*self.agent.config().name),
            gen_ai.provider.name = genai::on(|| self.model.provider()),
            gen_ai.request.model = genai::on(|| genai::request_model(&*self.model)),
            gen_ai.conversation.id = genai::on(|| self.scope.correlation_id()),
            gen_ai.usage.input_tokens = tracing::field::Empty,
            gen_ai.usage.output_tokens = tracing::field::Empty,
            error.type = tracing::field::Empty,
        )
    }

    /// A run, streamed to `events` when it is set. A child agent's run
    /// (whose scope has a path) keeps the events and the usage budget it
    /// inherited from its parent's call.
    async fn run_inner(
        &mut self,
        mut prompt: String,
        journal: Option<&dyn Journal>,
        events: Option<EventTx>,
    ) -> Result<RunOutput, RunError> {
        let span = self.run_span(false);
        #[cfg(feature = "otel")]
        let ended = span.clone();
        let out = async move {
            if self.pending.is_some() {
                // A typed entry point's check is for this run only.
                self.typed.clear_next();
                return Err(RunError::Paused);
            }
            if self.typed.has_next() || self.agent.config().output.is_some() {
                let tools =
                    hookwire_chain::toolset::ToolSet::shared_definitions(self.agent.tools());
                self.typed.start(
                    self.agent.config().output.as_ref(),
                    self.model.native_output(),
                    &tools,
                );
            } else {
                self.typed.clear();
            }
            let root = self.scope.path().is_empty();
            let events = match events {
                None if !root => self.scope.events().cloned(),
                events => events,
            };
            let budget = match self.settings.usage_limit {
                None if !root => self.scope.budget().cloned(),
                limit => limit.map(Budget::new),
            };
            self.scope.set_run_link(&self.session, events, budget);
            // Room for a run of a step or two (eight events), kept under the
            // size a small-block allocator serves from its per-thread cache
            // (about 1 KiB): a larger first block made every session dearer
            // (see BENCHMARKS.md). The session's empty trace, or the last
            // run's if nobody holds it any more, is reused.
            match Arc::get_mut(&mut self.trace) {
                Some(trace) => {
                    trace.clear();
                    trace.reserve(TRACE_ROOM);
                }
                None => self.trace = Arc::new(Vec::with_capacity(TRACE_ROOM)),
            }
            self.usage = Usage::default();
            self.child_usage.clear();
            // A root run counts the session's runs (idempotency keys); a
            // child's run keeps its parent call's number.
            if root {
                self.scope.set_run(self.scope.run() + 1);
            }
            self.steps = 0;
            self.forced = 0;
            self.unavailable.clear();
            // Approvals waiting from a run that ended without pausing (a
            // stop in the same step) belong to no call any more: drop them,
            // so that no later call is taken for one.
            self.forget_waiting();
            if !self.agent.config().use_history {
                Arc::make_mut(&mut self.history).clear();
            }
            let agent_name = self.scope.agent_arc();
            let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
            let none = no_hooks(&hooks);
            let flow = if none {
                Ok(Flow::Continue)
            } else {
                caught(
                    "execution_start",
                    hooks.execution_start(&mut ExecutionStart {
                        agent: &agent_name,
                        correlation_id: self.scope.correlation_id(),
                        history: Arc::make_mut(&mut self.history),
                    }),
                )
                .await
            }
            .unwrap_or_else(|m| {
                Flow::Stop(format!("a lifecycle hook panicked in execution_start: {m}"))
            });
            if let Flow::Stop(reason) = flow {
                drop(hooks);
                return self.finish_stopped("execution_start", reason, None).await;
            }
            let flow = if none {
                Ok(Flow::Continue)
            } else {
                caught(
                    "user_prompt_submit",
                    hooks.user_prompt_submit(&mut PromptSubmit {
                        agent: &agent_name,
                        prompt: &mut prompt,
                    }),
                )
                .await
            }
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
                self.record(TraceEvent::Warning { text });
            }
            self.record(TraceEvent::Prompt {
                text: prompt.clone(),
            });
            Arc::make_mut(&mut self.history).push(Message::user(prompt));
            if let Err(e) = self.inject(HookEvent::OnRequestStart, journal).await {
                return self.fail(e.into()).await;
            }
            self.drive(None, journal).await
        }
        .instrument(span)
        .await;
        #[cfg(feature = "otel")]
        genai::run_end(&ended, &out);
        out
    }

    /// Resumes a run paused for approval, once every pending call has a
    /// decision ([`Approvals::resolve`]).
    pub async fn resume(&mut self) -> Result<RunOutput, RunError> {
        self.resume_inner(None, None).await
    }

    /// [`resume`](Self::resume) with a journal, as
    /// [`run_journaled`](Self::run_journaled).
    pub async fn resume_journaled(&mut self, journal: &dyn Journal) -> Result<RunOutput, RunError> {
        self.resume_inner(Some(journal), None).await
    }

    /// A resumed run, streamed to `events` when it is set (as
    /// [`run_inner`](Self::run_inner)).
    async fn resume_inner(
        &mut self,
        journal: Option<&dyn Journal>,
        events: Option<EventTx>,
    ) -> Result<RunOutput, RunError> {
        let span = self.run_span(true);
        #[cfg(feature = "otel")]
        let ended = span.clone();
        let out = async move {
            let Some(pending) = self.pending.take() else {
                return Err(RunError::NotPaused);
            };
            let waiting = self.approvals.pending_within(&self.scope).len();
            if waiting > 0 {
                self.pending = Some(pending);
                return Err(RunError::StillPending(waiting));
            }
            let events = match events {
                None if !self.scope.path().is_empty() => self.scope.events().cloned(),
                events => events,
            };
            let budget = self.scope.budget().cloned();
            self.scope.set_run_link(&self.session, events, budget);
            self.trace = Arc::default();
            self.drive(Some(pending), journal).await
        }
        .instrument(span)
        .await;
        #[cfg(feature = "otel")]
        genai::run_end(&ended, &out);
        out
    }
}

/// Runs a lifecycle hook; a panic becomes `Err(message)`, logged, so that a
/// hook never takes the run (or the process) down.
/// Whether `hooks` are no lifecycle hooks at all
/// ([`LifecycleHooks::NONE`]): the loop then skips their calls.
fn no_hooks<L: LifecycleHooks>(_: &L) -> bool {
    L::NONE
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

impl<A: Agent> Agent for Arc<A> {
    type Tools = A::Tools;
    const DURABLE_NAME: super::decl::DurableName = A::DURABLE_NAME;

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
        args: hookwire_chain::call::ToolArgs,
        inner: &C,
    ) -> impl std::future::Future<Output = hookwire_chain::call::Outcome> + Send {
        (**self).call_dynamic(cx, args, inner)
    }

    fn hooks_selecting_none(
        &self,
        tools: &[hookwire_chain::matcher::MatchTarget<'_>],
    ) -> Vec<(&'static str, String)> {
        (**self).hooks_selecting_none(tools)
    }

    fn hooks_for_call(
        &self,
        target: &hookwire_chain::matcher::MatchTarget<'_>,
    ) -> Vec<&'static str> {
        (**self).hooks_for_call(target)
    }

    fn warnings(&self) -> Vec<String> {
        (**self).warnings()
    }

    fn hooks_for(&self, tool: &str, source: ToolSource) -> Vec<&'static str> {
        (**self).hooks_for(tool, source)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_correlation_id_is_the_agent_and_sixteen_hex_digits() {
        assert_eq!(&*super::correlation_id("pmo", 0xab), "pmo-00000000000000ab");
        assert_eq!(
            *super::correlation_id("a", u64::MAX),
            format!("a-{:016x}", u64::MAX)
        );
        assert_eq!(
            *super::correlation_id("x", 0x0123_4567_89ab_cdef),
            format!("x-{:016x}", 0x0123_4567_89ab_cdef_u64)
        );
        // A name too long for the in-place buffer is written as well.
        let long = "n".repeat(200);
        assert_eq!(
            *super::correlation_id(&long, 1),
            format!("{long}-{:016x}", 1)
        );
        let edge = "e".repeat(79);
        assert_eq!(
            *super::correlation_id(&edge, 2),
            format!("{edge}-{:016x}", 2)
        );
    }
}
