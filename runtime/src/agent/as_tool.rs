//! Agents as tools: a child agent exposed to a parent as `agent__<Name>`.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

use super::decl::{AgentDecl, HistoryMergeTarget, HistorySource};
use super::runner::{PARENT, RunOutput, RunStatus, Runner};
use crate::call::{Outcome, ToolResult};
use crate::context::{ToolContext, ToolSource};
use crate::error::ToolError;
use crate::model::{Message, Model};
use crate::tool::Tool;

type Extractor = dyn Fn(&RunOutput, &[Message]) -> ToolResult + Send + Sync;
type ModelFactory = dyn Fn() -> Arc<dyn Model> + Send + Sync;

/// A child agent as a [`Tool`] named `agent__<Name>`, so that generated
/// chains wrap it in hooks like any other tool (its source is
/// [`ToolSource::Agent`]).
///
/// * Arguments: `{message: string}`, or the child's `tool_input_schema`
///   (then the whole argument object, as JSON text, is the child's prompt).
/// * Every call runs on a **fresh** child instance made by the factory.
/// * `max_parallel` (from the child's config): excess calls wait on a
///   semaphore; none is dropped.
/// * `child_timeout` (from the child's config): a call that takes longer
///   ends in [`ToolError::TimedOut`], an error result for the parent model.
/// * `history_source`: the child starts from no history, its own history of
///   earlier calls (`child`), the parent's history (`orchestrator`), or the
///   `messages` argument (`messages`).
/// * `history_merge_target`: afterwards the child's conversation is kept for
///   its next call (`child`) or appended to the parent's history after the
///   step's tool results (`orchestrator`).
/// * The output extractor turns the child's run into the tool result
///   (default: the final text).
pub struct AgentTool<F> {
    name: String,
    description: String,
    factory: F,
    model: Arc<ModelFactory>,
    input_schema: Option<Value>,
    semaphore: Option<Arc<Semaphore>>,
    timeout: Option<Duration>,
    history_source: HistorySource,
    merge_target: HistoryMergeTarget,
    child_history: Mutex<Vec<Message>>,
    extractor: Arc<Extractor>,
}

impl<F> std::fmt::Debug for AgentTool<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentTool")
            .field("name", &self.name)
            .field("timeout", &self.timeout)
            .field("history_source", &self.history_source)
            .field("history_merge_target", &self.merge_target)
            .finish_non_exhaustive()
    }
}

/// The tool name of an agent: `agent__<Name>`.
pub fn agent_tool_name(agent: &str) -> String {
    format!("agent__{agent}")
}

impl<A: AgentDecl, F: Fn() -> A + Send + Sync> AgentTool<F> {
    /// The child made by `factory` (called once here to read its
    /// configuration, and once per call), asking `model`.
    pub fn new(factory: F, model: Arc<dyn Model>) -> Self {
        Self::with_model_factory(factory, move || model.clone())
    }

    /// The child with the model its configuration names: `HOOKWIRE_MODEL`
    /// if set, else the config's `model`, resolved once, here (see
    /// [`model::for_agent`](crate::model::for_agent)). A child that names no
    /// model asks its parent's model (the model of the run that calls it),
    /// or `passthrough` outside a run. A model that cannot be set up (a
    /// missing script file, say) makes every call an error result naming
    /// the problem; nothing panics.
    pub fn with_configured_model(factory: F) -> Self {
        let config = factory().config().clone();
        let named = std::env::var("HOOKWIRE_MODEL")
            .ok()
            .is_some_and(|m| !m.is_empty())
            || config.model.is_some();
        if !named {
            return Self::with_model_factory(factory, || {
                PARENT
                    .try_with(|p| p.model.clone())
                    .unwrap_or_else(|_| Arc::new(crate::model::PassthroughModel))
            });
        }
        let model = match crate::model::for_agent(&config, None) {
            Ok(model) => model,
            Err(error) => Arc::new(Broken(error)),
        };
        Self::new(factory, model)
    }

    /// Like [`new`](Self::new), with a fresh model per call too.
    pub fn with_model_factory(
        factory: F,
        model: impl Fn() -> Arc<dyn Model> + Send + Sync + 'static,
    ) -> Self {
        let probe = factory();
        let config = probe.config();
        let description = config
            .description
            .clone()
            .unwrap_or_else(|| config.instruction.clone())
            .into_owned();
        Self {
            name: agent_tool_name(&config.name),
            description,
            input_schema: config.tool_input_schema.clone(),
            semaphore: config
                .max_parallel
                .map(|n| Arc::new(Semaphore::new(n.clamp(1, Semaphore::MAX_PERMITS)))),
            timeout: config.child_timeout,
            history_source: config.history_source,
            merge_target: config.history_merge_target,
            child_history: Mutex::new(Vec::new()),
            extractor: Arc::new(|out: &RunOutput, _: &[Message]| match &out.status {
                RunStatus::Completed => ToolResult::text(out.text.clone()),
                RunStatus::Stopped { reason, .. } => {
                    ToolResult::error(format!("the agent stopped: {reason}"))
                }
                RunStatus::Paused { .. } => {
                    ToolResult::error("the agent paused for approval".to_owned())
                }
            }),
            factory,
            model: Arc::new(model),
        }
    }

    /// Sets the output extractor: from the child's run and final history
    /// to the tool result.
    pub fn with_output(
        mut self,
        extract: impl Fn(&RunOutput, &[Message]) -> ToolResult + Send + Sync + 'static,
    ) -> Self {
        self.extractor = Arc::new(extract);
        self
    }

    /// Overrides `max_parallel`.
    pub fn with_max_parallel(mut self, n: usize) -> Self {
        self.semaphore = Some(Arc::new(Semaphore::new(n.clamp(1, Semaphore::MAX_PERMITS))));
        self
    }

    /// Overrides the child timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The child's own history kept between calls (`history_merge_target: child`).
    pub fn child_history(&self) -> Vec<Message> {
        lock(&self.child_history).clone()
    }

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
            HistorySource::Child => self.child_history(),
            HistorySource::Orchestrator => {
                PARENT.try_with(|p| p.history.clone()).unwrap_or_default()
            }
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

/// A model that could not be set up: every request fails with the reason.
struct Broken(crate::model::ModelError);

impl Model for Broken {
    fn name(&self) -> &str {
        "unavailable"
    }

    fn complete<'a>(
        &'a self,
        _request: crate::model::ModelRequest<'a>,
    ) -> crate::approval::BoxFuture<'a, Result<crate::model::ModelResponse, crate::model::ModelError>>
    {
        Box::pin(std::future::ready(Err(self.0.clone())))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

impl<A: AgentDecl, F: Fn() -> A + Send + Sync> Tool for AgentTool<F> {
    type Args = Map<String, Value>;

    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn source(&self) -> ToolSource {
        ToolSource::Agent
    }

    fn input_schema(&self) -> Value {
        match &self.input_schema {
            Some(schema) => schema.clone(),
            None if self.history_source == HistorySource::Messages => json!({
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
        let prompt = self.prompt(&args)?;
        let history = self.start_history(&args)?;
        let _permit = match &self.semaphore {
            Some(s) => Some(s.acquire().await.map_err(|_| ToolError::Cancelled)?),
            None => None,
        };
        let start = history.len();
        let mut runner = Runner::with_model_arc((self.factory)(), (self.model)())
            .with_history(history)
            .with_correlation_id(cx.correlation_id());
        runner.set_chain_approver(cx.approver().cloned());
        // The child's run is boxed: one allocation per child run (which
        // allocates a runner and a history anyway), so that the parent's
        // future does not contain the child's whole loop and chains by value.
        // Nested by value, a parent with children (and theirs) grows a
        // future type deep enough to hit rustc's query depth limit.
        let run: Pin<Box<dyn Future<Output = _> + Send + '_>> = Box::pin(runner.run(prompt));
        let out = match self.timeout {
            Some(limit) => match tokio::time::timeout(limit, run).await {
                Ok(out) => out,
                Err(_) => {
                    return Err(ToolError::TimedOut {
                        what: format!("agent `{}`", self.name),
                        after: limit,
                    });
                }
            },
            None => run.await,
        };
        let out = out.map_err(|e| ToolError::tool_message(self.name.clone(), e, false))?;
        let history = runner.history();
        match self.merge_target {
            HistoryMergeTarget::None => {}
            HistoryMergeTarget::Child => *lock(&self.child_history) = history.to_vec(),
            HistoryMergeTarget::Orchestrator => {
                let new = history.get(start..).unwrap_or_default().to_vec();
                let _ = PARENT.try_with(|p| lock(&p.merged).extend(new));
            }
        }
        Ok((self.extractor)(&out, history))
    }
}
