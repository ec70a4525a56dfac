//! Agents as tools: a child agent exposed to a parent as `agent__<Name>`.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::decl::{Agent, AgentConfig, HistoryMergeTarget, HistorySource};
use super::runner::{
    CALL_STARTED, PARENT, PausedChild, RunOutput, RunStatus, Runner, expired, remaining,
};
use crate::BoxFuture;
use crate::context::{ToolContext, ToolSource};
use crate::declare::OnError;
use crate::error::ToolError;
use crate::model::{Message, Model};
use hookwire_chain::call::{Outcome, ToolResult};
use hookwire_chain::tool::{IntoOutcome, Tool};

/// An output extractor for a child agent: from the child's run and its
/// final history to what the parent model reads. The `output = path` of an
/// `agents` entry (`#[agent(agents = [X(output = path)])]`, a card's
/// `agents: [{name: X, output: file.rs:function}]`).
///
/// Any `fn(&RunOutput, &[Message]) -> R` where `R:` [`IntoOutcome`] is one:
/// return a `String` or a [`ToolResult`], or an `Outcome` to fail the call.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a child agent's output extractor",
    label = "expected `fn(&RunOutput, &[Message]) -> R` where `R: IntoOutcome`",
    note = "an output extractor is a function such as `fn last_line(out: &hookwire::agent::RunOutput, history: &[hookwire::model::Message]) -> String`"
)]
pub trait AgentOutput: Send + Sync {
    /// The result of the child agent tool `tool` for the run `out`, whose
    /// history is `history`.
    fn extract(&self, out: &RunOutput, history: &[Message], tool: &str) -> Outcome;
}

#[diagnostic::do_not_recommend]
impl<F, R> AgentOutput for F
where
    F: Fn(&RunOutput, &[Message]) -> R + Send + Sync,
    R: IntoOutcome,
{
    fn extract(&self, out: &RunOutput, history: &[Message], tool: &str) -> Outcome {
        self(out, history).into_outcome(tool)
    }
}

type Extractor = dyn Fn(&RunOutput, &[Message]) -> Outcome + Send + Sync;
type ModelFactory = dyn Fn() -> Arc<dyn Model> + Send + Sync;

/// A child agent as a [`Tool`] named `agent__<Name>`, so that generated
/// chains wrap it in hooks like any other tool (its source is
/// [`ToolSource::Agent`]).
///
/// The child is an agent value, built once with its parent and shared by
/// every session of the parent; each call runs a **fresh session** of it (a
/// new [`Runner`]), so nothing of one call or one user reaches another.
///
/// * Arguments: `{message: string}`, or the child's `tool_input_schema`
///   (then the whole argument object, as JSON text, is the child's prompt).
/// * The options that govern calls of a child are the **orchestrator's**,
///   as in fast-agent: generated agents set them from the parent's
///   declaration ([`with_orchestrator`](Self::with_orchestrator)).
///   * `child_timeout`: a call that takes longer ends in
///     [`ToolError::TimedOut`], an error result for the parent model.
///   * `history_source`: the child starts from no history, its own history
///     of earlier calls in this session (`child`), the parent's history
///     (`orchestrator`: up to the answer whose calls are running, whose
///     results do not exist yet), or the `messages` argument (`messages`).
///   * `history_merge_target`: afterwards the child's conversation is kept
///     for its next call in this session (`child`) or appended to the
///     parent's history after the step's tool results (`orchestrator`).
///   * `max_parallel` is the parent runner's limit on the tool calls of one
///     step (`RunSettings::max_parallel`), which every call of a child
///     passes; it is not a process-wide limit, so one user's calls never
///     wait for another's.
/// * A child's own history lives in the parent's session (the [`Runner`]),
///   is exported with its [`RunState`](super::RunState), and is empty
///   outside a run.
/// * The output extractor turns the child's run into the tool result
///   (default: the final text); `on_error` turns an error of the call (bad
///   arguments, the child's run failing, a timeout, an error the extractor
///   returns) into what the parent model reads (default: the error).
pub struct AgentTool<A> {
    opts: Options,
    /// The child, behind the one interface a call needs. Holding it as
    /// `Arc<A>` would make every parent type contain its children's types
    /// (and theirs): rustc proves `Send`, `Sync` and drop facts through
    /// that nesting, and a chain of some twenty agents ran out of its
    /// recursion limit (E0275). Behind a trait object, a parent's type
    /// stops at its children, whatever their depth.
    child: Arc<dyn ChildRun>,
    _agent: PhantomData<fn() -> A>,
}

/// What governs a call of the child: everything of an [`AgentTool`] but
/// the child itself.
struct Options {
    name: String,
    description: String,
    model: Arc<ModelFactory>,
    input_schema: Option<Value>,
    timeout: Option<Duration>,
    history_source: HistorySource,
    merge_target: HistoryMergeTarget,
    extractor: Arc<Extractor>,
    on_error: Option<Arc<dyn OnError>>,
}

impl<A> std::fmt::Debug for AgentTool<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentTool")
            .field("name", &self.opts.name)
            .field("timeout", &self.opts.timeout)
            .field("history_source", &self.opts.history_source)
            .field("history_merge_target", &self.opts.merge_target)
            .finish_non_exhaustive()
    }
}

pub use hookwire_spec::agent_tool_name;

impl<A: Agent> AgentTool<A> {
    /// The child `agent`, asking `model`.
    pub fn new(agent: impl Into<Arc<A>>, model: Arc<dyn Model>) -> Self {
        Self::with_model_factory(agent, move || model.clone())
    }

    /// The child with the model its configuration names: `HOOKWIRE_MODEL`
    /// if set, else the config's `model`, resolved once, here (see
    /// [`AgentConfig::load_model`](crate::agent::AgentConfig::load_model)). A child that names no
    /// model asks its parent's model (the model of the run that calls it),
    /// or `passthrough` outside a run. A model that cannot be set up (a
    /// missing script file, say) makes every call an error result naming
    /// the problem; nothing panics.
    pub fn with_configured_model(agent: impl Into<Arc<A>>) -> Self {
        let agent = agent.into();
        let config = agent.config();
        let named = std::env::var("HOOKWIRE_MODEL")
            .ok()
            .is_some_and(|m| !m.is_empty())
            || config.model.is_some();
        if !named {
            return Self::with_model_factory(agent, || {
                PARENT
                    .try_with(|p| p.model.clone())
                    .unwrap_or_else(|_| Arc::new(crate::model::PassthroughModel))
            });
        }
        let model = match config.load_model(None) {
            Ok(model) => model,
            Err(error) => Arc::new(Broken(error)),
        };
        Self::new(agent, model)
    }

    /// Like [`new`](Self::new), with a fresh model per call.
    pub fn with_model_factory(
        agent: impl Into<Arc<A>>,
        model: impl Fn() -> Arc<dyn Model> + Send + Sync + 'static,
    ) -> Self {
        let agent = agent.into();
        let config = agent.config();
        let description = config
            .description
            .clone()
            .unwrap_or_else(|| config.instruction.clone())
            .into_owned();
        Self {
            opts: Options {
                name: agent_tool_name(&config.name),
                description,
                input_schema: config.tool_input_schema.clone(),
                timeout: None,
                history_source: HistorySource::None,
                merge_target: HistoryMergeTarget::None,
                extractor: Arc::new(|out: &RunOutput, _: &[Message]| {
                    Ok(match &out.status {
                        RunStatus::Completed => ToolResult::text(out.text.clone()),
                        RunStatus::Stopped { reason, .. } => {
                            ToolResult::error(format!("the agent stopped: {reason}"))
                        }
                        RunStatus::Paused { .. } => {
                            ToolResult::error("the agent paused for approval".to_owned())
                        }
                    })
                }),
                on_error: None,
                model: Arc::new(model),
            },
            child: Arc::new(Erased(agent)),
            _agent: PhantomData,
        }
    }

    /// Takes the options that govern calls of this child from the
    /// orchestrator's declaration: `child_timeout`, `history_source` and
    /// `history_merge_target`.
    pub fn with_orchestrator(mut self, orchestrator: &AgentConfig) -> Self {
        self.opts.timeout = orchestrator.child_timeout;
        self.opts.history_source = orchestrator.history_source;
        self.opts.merge_target = orchestrator.history_merge_target;
        self
    }

    /// Sets the output extractor: from the child's run and final history
    /// to the tool result.
    pub fn with_output(
        mut self,
        extract: impl Fn(&RunOutput, &[Message]) -> ToolResult + Send + Sync + 'static,
    ) -> Self {
        self.opts.extractor =
            Arc::new(move |out: &RunOutput, history: &[Message]| Ok(extract(out, history)));
        self
    }

    /// Sets the output extractor from a function such as `fn(&RunOutput,
    /// &[Message]) -> String` (any [`AgentOutput`]): what `output = path`
    /// in an `agents` entry generates.
    pub fn with_output_fn(mut self, extract: impl AgentOutput + 'static) -> Self {
        let name = self.opts.name.clone();
        self.opts.extractor = Arc::new(move |out: &RunOutput, history: &[Message]| {
            extract.extract(out, history, &name)
        });
        self
    }

    /// Sets what the parent model reads when a call of the child fails: a
    /// `fn(ToolError) -> R` where `R: IntoOutcome` (any [`OnError`], as a
    /// tool's `on_error`). It sees bad arguments, the child's run failing,
    /// a timeout and an error the extractor returns; not a child that
    /// waits for approval (the call runs again once it is decided).
    pub fn with_on_error(mut self, map: impl OnError + 'static) -> Self {
        self.opts.on_error = Some(Arc::new(map));
        self
    }

    /// Sets the child timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.opts.timeout = Some(timeout);
        self
    }

    /// Sets which history the child starts from.
    pub fn with_history_source(mut self, source: HistorySource) -> Self {
        self.opts.history_source = source;
        self
    }

    /// Sets where the child's conversation goes afterwards.
    pub fn with_history_merge_target(mut self, target: HistoryMergeTarget) -> Self {
        self.opts.merge_target = target;
        self
    }

    /// The child agent's declaration.
    pub fn config(&self) -> &AgentConfig {
        self.child.config()
    }
}

impl Options {
    fn prompt(&self, args: &Map<String, Value>) -> Result<String, ToolError> {
        if self.input_schema.is_some() {
            return Ok(Value::Object(args.clone()).to_string());
        }
        match args.get("message") {
            Some(Value::String(m)) => Ok(m.clone()),
            Some(_) => Err(ToolError::invalid_arguments(
                self.name.clone(),
                Some("message".into()),
                "expected a string",
            )),
            None => Err(ToolError::invalid_arguments(
                self.name.clone(),
                None,
                "missing field `message`",
            )),
        }
    }

    fn start_history(&self, args: &Map<String, Value>) -> Result<Vec<Message>, ToolError> {
        Ok(match self.history_source {
            HistorySource::None => Vec::new(),
            HistorySource::Child => PARENT
                .try_with(|p| p.child_history(&self.name))
                .unwrap_or_default(),
            HistorySource::Orchestrator => PARENT
                .try_with(|p| settled(&p.history).to_vec())
                .unwrap_or_default(),
            HistorySource::Messages => match args.get("messages") {
                None => Vec::new(),
                Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
                    ToolError::invalid_arguments(
                        self.name.clone(),
                        Some("messages".into()),
                        e.to_string(),
                    )
                })?,
            },
        })
    }
}

/// The orchestrator's history as a child may start from: without the
/// answer whose tool calls are running now (the call of this child among
/// them). A new step's answer joins the history only with its results; a
/// resumed step's is there from its pause, without them, and a
/// conversation with tool calls but no results is one that providers
/// refuse.
fn settled(history: &[Message]) -> &[Message] {
    match history.split_last() {
        Some((Message::Assistant { tool_calls, .. }, earlier)) if !tool_calls.is_empty() => earlier,
        _ => history,
    }
}

/// A model that could not be set up: every request fails with the reason.
struct Broken(crate::model::ModelError);

impl Model for Broken {
    fn name(&self) -> &str {
        "unavailable"
    }

    fn complete<'a>(
        &'a self,
        _request: crate::model::ModelRequest<'a>,
    ) -> crate::BoxFuture<'a, Result<crate::model::ModelResponse, crate::model::ModelError>> {
        Box::pin(std::future::ready(Err(self.0.clone())))
    }
}

impl<A: Agent> Tool for AgentTool<A> {
    type Args = Map<String, Value>;

    fn name(&self) -> &str {
        &self.opts.name
    }

    fn description(&self) -> &str {
        &self.opts.description
    }

    fn source(&self) -> ToolSource {
        ToolSource::Agent
    }

    fn input_schema(&self) -> Value {
        match &self.opts.input_schema {
            Some(schema) => schema.clone(),
            None if self.opts.history_source == HistorySource::Messages => json!({
                "type": "object",
                "properties": {
                    "message": {"type": "string", "description": "The message for the agent."},
                    "messages": {
                        "type": "array",
                        "description": "The conversation the agent starts from: {role, content} objects.",
                        "items": {"type": "object"}
                    }
                },
                "required": ["message"],
            }),
            None => json!({
                "type": "object",
                "properties": {"message": {"type": "string", "description": "The message for the agent."}},
                "required": ["message"],
            }),
        }
    }

    async fn call(&self, cx: &ToolContext, args: Map<String, Value>) -> Outcome {
        match (
            self.child.call(&self.opts, cx, args).await,
            &self.opts.on_error,
        ) {
            (Err(error), Some(map)) if !waits(&error) => map.on_error(error, &self.opts.name),
            (out, _) => out,
        }
    }
}

/// Whether `error` is the child's pause (the call waits for a person and
/// runs again once decided), which `on_error` does not see.
fn waits(error: &ToolError) -> bool {
    matches!(error, ToolError::Denied { reason, hook: Some(hook) }
        if reason == crate::approval::PENDING_REASON && hook == "approver")
}

/// A child agent as an [`AgentTool`] runs it: type-erased, so that a
/// parent's type does not contain its children's.
trait ChildRun: Send + Sync {
    fn config(&self) -> &AgentConfig;

    fn call<'a>(
        &'a self,
        opts: &'a Options,
        cx: &'a ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Outcome>;
}

struct Erased<A>(Arc<A>);

impl<A: Agent> ChildRun for Erased<A> {
    fn config(&self) -> &AgentConfig {
        self.0.config()
    }

    fn call<'a>(
        &'a self,
        opts: &'a Options,
        cx: &'a ToolContext,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Outcome> {
        Box::pin(OwnStack {
            inner: run_child(&self.0, opts, cx, args),
        })
    }
}

/// The stack a child's run is polled with at least: a new segment is
/// taken when less is left.
const RED_ZONE: usize = 1024 * 1024;
/// The size of such a segment: a thread's usual stack.
const SEGMENT: usize = 2 * 1024 * 1024;

pin_project_lite::pin_project! {
    /// A child's run, polled on a stack with at least [`RED_ZONE`] bytes
    /// left: a chain of agents polls each level inside its parent's poll
    /// (some 200 KiB of stack per level in a debug build, less in
    /// release), so a deep chain would overflow the thread's stack. When
    /// less is left, the poll runs on a fresh [`SEGMENT`] (`stacker`, as
    /// rustc does for deep recursion), so a chain of any depth runs on
    /// any thread; a shallow one pays one comparison per poll.
    struct OwnStack<F> {
        #[pin]
        inner: F,
    }
}

impl<F: std::future::Future> std::future::Future for OwnStack<F> {
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let inner = self.project().inner;
        stacker::maybe_grow(RED_ZONE, SEGMENT, || inner.poll(cx))
    }
}

/// One call of the child: a fresh session of it, or the resumption of the
/// one that paused at this very call.
async fn run_child<A: Agent>(
    agent: &Arc<A>,
    opts: &Options,
    cx: &ToolContext,
    args: Map<String, Value>,
) -> Outcome {
    let id = cx.tool_use_id();
    // Under a journal, a call whose deadline passed while the service was
    // down does not start the child again.
    if let Some(limit) = opts.timeout.filter(|limit| expired(*limit)) {
        return Err(ToolError::TimedOut {
            what: format!("agent `{}`", opts.name),
            after: limit,
        });
    }
    // A run of this child that paused for approval at this very call
    // (same step, same call id) continues where it paused.
    let paused = PARENT.try_with(|p| p.paused(id)).ok().flatten();
    let resuming = paused.is_some();
    let parent_approvals = PARENT.try_with(|p| p.approvals.clone()).ok();
    let mut runner =
        Runner::new(agent.clone(), (opts.model)()).with_correlation_id(cx.correlation_id());
    runner.inherit_scope(cx, parent_approvals.clone());
    // The prompt of a new run; `None` to resume the paused one.
    let (start, prompt) = match paused {
        Some(PausedChild { state, start }) => {
            if let Err(e) = runner.restore_child(state) {
                // The paused run does not fit the child: nothing can
                // resume it, so nothing of it may stay waiting.
                if let Some(approvals) = &parent_approvals {
                    approvals.forget_at(cx.scope(), id);
                }
                let _ = PARENT.try_with(|p| p.forget_paused(id));
                return Err(ToolError::tool_message(opts.name.clone(), e, false));
            }
            (start, None)
        }
        None => {
            let prompt = opts.prompt(&args)?;
            let history = opts.start_history(&args)?;
            let start = history.len();
            *runner.history_mut() = history;
            (start, Some(prompt))
        }
    };
    // The child's own calls do not inherit the parent call's start. (This
    // whole call is already boxed, see `ChildRun`, so the child's loop is
    // not part of the parent's future type.)
    let run = CALL_STARTED.scope(None, async {
        match prompt {
            None => runner.resume().await,
            Some(prompt) => runner.run(prompt).await,
        }
    });
    let out = match opts.timeout {
        // Under a journal, a call run again after a restart has what is
        // left of the timeout (a durable timer). Waiting for a person is
        // not part of it.
        Some(limit) => crate::wait::limit(remaining(limit), run).await.ok(),
        None => Some(run.await),
    };
    // The paused run this call resumed is spent, however the run ended
    // (kept again below if it paused again).
    if resuming {
        let _ = PARENT.try_with(|p| p.forget_paused(id));
    }
    // The child's tokens count for its parent, however its run ended.
    let usage = runner.usage_by_path();
    let _ = PARENT.try_with(|p| p.add_usage(usage));
    let Some(out) = out else {
        return Err(ToolError::TimedOut {
            what: format!("agent `{}`", opts.name),
            after: opts.timeout.unwrap_or_default(),
        });
    };
    let out = out.map_err(|e| ToolError::tool_message(opts.name.clone(), e, false))?;
    if let RunStatus::Paused { .. } = &out.status {
        // The child waits for a person: its parent's run pauses too, and
        // this call runs again (and the child resumes) once every
        // waiting call is decided. Outside a parent run there is nothing
        // to resume it: the extractor reports the pause.
        let child = PausedChild {
            state: runner.export_child(),
            start,
        };
        if PARENT.try_with(|p| p.keep_paused(id, child)).is_ok() {
            return Err(ToolError::Denied {
                reason: crate::approval::PENDING_REASON.to_owned(),
                hook: Some("approver".into()),
            });
        }
    }
    let history = runner.history();
    match opts.merge_target {
        HistoryMergeTarget::None => {}
        HistoryMergeTarget::Child => {
            let kept = history.to_vec();
            let _ = PARENT.try_with(|p| p.keep_child_history(&opts.name, kept));
        }
        HistoryMergeTarget::Orchestrator => {
            let new = history.get(start..).unwrap_or_default().to_vec();
            let _ = PARENT.try_with(|p| p.merge(new));
        }
    }
    (opts.extractor)(&out, history)
}
