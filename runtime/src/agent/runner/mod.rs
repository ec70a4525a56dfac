//! The agent loop, by concern:
//!
//! * this file: [`Runner`] and [`RunSettings`];
//! * `build.rs`: the runner's builders and accessors;
//! * `conversation.rs`: a conversation's state (history, approvals, paused
//!   step, trace, tokens, typed output), what export, import and a
//!   journaled replay work on;
//! * `run.rs`: `run` and `resume`, up to the first step;
//! * `step.rs`: the loop (`drive`), one step at a time, in three phases:
//!   ask the model (`ask.rs`), run the step's calls (`calls.rs`), finish
//!   the run (`finish.rs`);
//! * `inject.rs`: the request hooks' rounds of injections;
//! * `call.rs`: one tool call, from the lifecycle `pre_tool_use` hooks to
//!   its trace record;
//! * `trace.rs`: what a run returns ([`RunOutput`], [`RunStatus`],
//!   [`TraceEvent`]);
//! * `events.rs`: a run as a stream of events ([`Runner::stream`],
//!   [`RunEvent`]), and the one place a trace event is recorded;
//! * `state.rs`: the resumable state ([`RunState`]) and its import/export;
//!   `state_check.rs`: how an imported state is checked;
//! * `turns.rs`: whether a history is one a provider accepts (every tool
//!   call answered), checked when a state is imported;
//! * `seal.rs`: the key states are sealed with ([`StateSeal`]);
//! * `names.rs`: the names a run is given, checked when it starts;
//! * `parent.rs`: what a run shares with the child agents it calls;
//! * `journaled.rs`: the steps recorded under a [`Journal`];
//! * `error.rs`: [`RunError`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use serde::{Deserialize, Serialize};

use super::decl::Agent;
use super::inject::Clock;
use super::lifecycle::LifecycleHooks;
use crate::context::ToolSource;
use crate::model::Model;
use crate::scope::CallScope;
use conversation::Conversation;

mod ask;
mod build;
mod call;
mod calls;
mod conversation;
mod error;
mod events;
mod finish;
mod genai;
mod inject;
mod journaled;
mod link;
mod names;
mod output;
mod parent;
mod refused;
mod run;
mod seal;
mod state;
mod state_check;
mod step;
mod trace;
mod turns;

pub use error::RunError;
pub(crate) use events::EventTx;
pub use events::{EventKind, RunEvent, RunStream};
pub(crate) use journaled::{CALL_STARTED, expired, remaining};
pub(crate) use link::{LinkExt, SessionLink};
pub use names::SetupError;
pub use output::{TypedAgent, TypedOutput};
pub use parent::PausedChild;
pub(crate) use parent::{Budget, ChildHistories, PARENT, PausedChildren};
pub use seal::{MIN_STATE_KEY_BYTES, StateKey, StateKeyError, StateSeal};
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
    pub model_retry: crate::hooks::RetryPolicy,
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
            model_retry: crate::hooks::RetryPolicy::default(),
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
/// use hookwire::model::{ScriptedModel, Turn};
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
    scope: CallScope,
    /// What the session's calls share (the call log, the child-agent
    /// maps): the run's channel. It stays when the approvals are replaced.
    session: Arc<SessionLink>,
    settings: RunSettings,
    /// The clock of TTL injections; `None` is the system clock (nothing
    /// allocated for it).
    clock: Option<Arc<dyn Clock>>,
    /// The conversation: history, approvals, paused step, trace, tokens,
    /// counters, typed output.
    conv: Conversation,
    /// The tools not offered in the current step (their availability
    /// said no): a call to one is refused. Empty, and allocation-free, for
    /// an agent whose tools are always available.
    unavailable: Vec<String>,
    /// The approvals' names generation last checked against the agent's
    /// tools (`names.rs`): 0, none given, needs no check.
    names_checked: u64,
    /// How exported states are sealed and imported ones checked; `None`
    /// imports no state. (In an `Arc`: a runner without one stays small,
    /// and dropping none costs one test.)
    state_seal: Option<Arc<StateSeal>>,
}

impl<A: Agent, H> fmt::Debug for Runner<A, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("agent", &self.agent.config().name)
            .field("model", &self.model.name())
            .field("history", &self.conv.history.len())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
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

    fn refused_tools(&self) -> Vec<crate::agent::RefusedTool> {
        (**self).refused_tools()
    }

    fn warnings(&self) -> Vec<String> {
        (**self).warnings()
    }

    fn hooks_for(&self, tool: &str, source: ToolSource) -> Vec<&'static str> {
        (**self).hooks_for(tool, source)
    }
}
