//! Lifecycle hooks: code that runs at the seams of an agent run.
//!
//! Tool hooks (chains of [`Hook`](crate::Hook)s) run around each tool call
//! *inside* a tool set. Lifecycle hooks run in the agent loop around
//! everything else: the run, the user's prompt, each model request (a
//! *step*), each tool call as the loop sees it, and the end of the run.
//!
//! | event | when | may change | can block |
//! |---|---|---|---|
//! | [`execution_start`](LifecycleHooks::execution_start) | once per run, before the prompt is added | the history | yes: [`Flow::Stop`] ends the run before any model call |
//! | [`user_prompt_submit`](LifecycleHooks::user_prompt_submit) | before the user's message joins the history | the prompt text | yes: [`Flow::Stop`] rejects the prompt and ends the run |
//! | [`step_start`](LifecycleHooks::step_start) | before each model request | the history | yes: [`Flow::Stop`] ends the run |
//! | [`step_end`](LifecycleHooks::step_end) | after the model answered and its tool calls ran | the history (with the step's answer and results) | no |
//! | [`pre_tool_use`](LifecycleHooks::pre_tool_use) | before each tool call enters its chain | the arguments | yes: deny, ask, stop ([`Decision`]) |
//! | [`post_tool_use`](LifecycleHooks::post_tool_use) | after a call that succeeded | the result; messages added after the step's results | no |
//! | [`post_tool_failure`](LifecycleHooks::post_tool_failure) | after a call that failed (error or error result) | the result (a hook may recover) | no |
//! | [`stop`](LifecycleHooks::stop) | when the model gave a final answer | the history (ending with the answer) | no, but [`StopDecision::Continue`] forces another step (capped by the loop guard) |
//! | [`agent_failed`](LifecycleHooks::agent_failed) | when the run fails (model error, step limit) | nothing (observes) | no |
//! | [`execution_end`](LifecycleHooks::execution_end) | once per run, at the very end | nothing (observes) | no |
//!
//! Every context carries the session's [`RunMetadata`] (`cx.run_metadata`):
//! JSON values by key that one hook writes and a later one reads, kept in
//! an exported state.
//!
//! Lifecycle hooks are statically dispatched like tool hooks: a hook is a
//! type implementing [`LifecycleHooks`] (every method has a no-op default),
//! several hooks are a tuple `(A, B, C)` run in declared order, `()` is no
//! hooks, and [`ForTools`] restricts a hook's tool events to the tools a
//! [`Matcher`] (or a function of the tool name and source) selects.
//!
//! When several hooks decide about one tool call the strongest decision
//! wins: stop > deny > ask > continue. The first stop or deny ends the
//! evaluation (later hooks do not run); an ask is remembered while later
//! hooks still run (and may deny). Rewrites of the arguments apply in
//! declared order: each hook sees the rewrites of the hooks before it.
//!
//! A lifecycle hook that panics never takes the run down: in
//! `pre_tool_use` the call is denied (fail closed); in an event that can
//! block, the run stops with the panic as the reason; in an observing
//! event the panic is logged (target `hookwire::audit`) and the run goes on.
//! [`LifecycleGuard`] gives one hook a failure policy (`on_failure`: fail open
//! skips it, fail closed also turns a failing `post_tool_use` into an error
//! result) and a timeout (`timeout_ms`), as chain hooks have.
//!
//! ### When a guarded hook fails
//!
//! A hook in a [`LifecycleGuard`] fails when one of its methods panics or
//! runs past the timeout. Then:
//!
//! | event | fail closed | fail open |
//! |---|---|---|
//! | `pre_tool_use` | the call is denied; the model reads ``tool call denied by `H`: hook `H` failed: pre_tool_use panicked: ..`` | the hook is skipped: the arguments as before it, the call goes on |
//! | `post_tool_use`, `post_tool_failure` | the call's result becomes the error ``hook `H` failed: post_tool_use timed out after 50 ms`` | the hook is skipped: the result as before it |
//! | `execution_start`, `user_prompt_submit`, `step_start` | the run stops with that reason | the hook is skipped: the history (or prompt) as before it |
//! | `step_end`, `stop`, `agent_failed`, `execution_end` | logged and skipped (these observe; `stop` allows the stop) | the same |
//!
//! ```
//! use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
//! use hookwire::Decision;
//!
//! /// Denies every shell call.
//! struct NoShell;
//!
//! impl LifecycleHooks for NoShell {
//!     async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
//!         if cx.tool == "shell" { Decision::Deny("no shell here".into()) } else { Decision::Continue }
//!     }
//! }
//! ```

use std::future::Future;
use std::time::Duration;

use crate::agent::RunMetadata;
use crate::context::ToolSource;
pub use crate::decision::{Flow, StopDecision};
use crate::model::{Message, ModelResponse};
use crate::predicate::Predicate;
use crate::prepost::Decision;
use hookwire_chain::call::{Outcome, ToolArgs, ToolCall};
use hookwire_chain::matcher::{MatchTarget, Matcher, StepKind};

mod forward;
mod guard;
pub use guard::LifecycleGuard;

/// Context of [`execution_start`](LifecycleHooks::execution_start).
#[derive(Debug)]
#[non_exhaustive]
pub struct ExecutionStart<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The run's correlation id.
    pub correlation_id: &'a str,
    /// The history before the prompt is added; hooks may add or edit messages.
    pub history: &'a mut Vec<Message>,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// Context of [`user_prompt_submit`](LifecycleHooks::user_prompt_submit).
#[derive(Debug)]
#[non_exhaustive]
pub struct PromptSubmit<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The prompt; hooks may rewrite it.
    pub prompt: &'a mut String,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// Context of [`step_start`](LifecycleHooks::step_start).
#[derive(Debug)]
#[non_exhaustive]
pub struct StepStart<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The step's index (0-based).
    pub step: usize,
    /// The history about to be sent; hooks may edit it.
    pub history: &'a mut Vec<Message>,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// Context of [`step_end`](LifecycleHooks::step_end).
#[derive(Debug)]
#[non_exhaustive]
pub struct StepEnd<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The step's index.
    pub step: usize,
    /// The model's answer.
    pub response: &'a ModelResponse,
    /// The tool results of this step, in call order.
    pub tool_results: &'a [Message],
    /// How long the step took.
    pub elapsed: Duration,
    /// The history with the step's answer and results; hooks may edit it,
    /// and the model's next request (of this run, or of the session's next
    /// run after a final step) is what they leave.
    pub history: &'a mut Vec<Message>,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// Context of [`pre_tool_use`](LifecycleHooks::pre_tool_use).
#[derive(Debug)]
#[non_exhaustive]
pub struct PreToolUse<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The tool.
    pub tool: &'a str,
    /// Where the tool comes from.
    pub source: ToolSource,
    /// The metadata the tool declares.
    pub meta: &'a crate::ToolMeta,
    /// The model's id for the call.
    pub tool_use_id: &'a str,
    /// The arguments; hooks may rewrite them.
    pub args: &'a mut ToolArgs,
    /// The step's index.
    pub step: usize,
    /// The hook that made the deciding (non-continue) decision, set by the loop.
    pub decided_by: Option<&'static str>,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// Context of [`post_tool_use`](LifecycleHooks::post_tool_use) and
/// [`post_tool_failure`](LifecycleHooks::post_tool_failure).
#[derive(Debug)]
#[non_exhaustive]
pub struct PostToolUse<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The call as it was dispatched (after rewrites).
    pub call: &'a ToolCall,
    /// Where the tool comes from.
    pub source: ToolSource,
    /// The metadata the tool declares.
    pub meta: &'a crate::ToolMeta,
    /// The outcome; hooks may rewrite or replace it.
    pub outcome: &'a mut Outcome,
    /// How long the call took.
    pub elapsed: Duration,
    /// Messages to add to the history after the step's tool results: the
    /// model reads them in its next request. (The step's calls may run at
    /// once, and the step's answer joins the history with their results
    /// only when all are done, so a call's hook adds to the history rather
    /// than edits it; `step_end` sees and may edit the whole history.) A
    /// call run by a request-start injection keeps none.
    pub add_messages: &'a mut Vec<Message>,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// Context of [`stop`](LifecycleHooks::stop).
#[derive(Debug)]
#[non_exhaustive]
pub struct StopEvent<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The final answer.
    pub answer: &'a str,
    /// The step's index.
    pub step: usize,
    /// How many times a stop hook has already forced the loop on this run.
    pub forced_continues: usize,
    /// The history, ending with the final answer; hooks may edit it. With
    /// [`StopDecision::Continue`] the model's next request is what they
    /// leave (and the message); with [`StopDecision::Allow`] the session's
    /// next run starts from it.
    pub history: &'a mut Vec<Message>,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// Context of [`agent_failed`](LifecycleHooks::agent_failed).
#[derive(Debug)]
#[non_exhaustive]
pub struct AgentFailed<'a> {
    /// The agent.
    pub agent: &'a str,
    /// What went wrong.
    pub error: &'a crate::agent::RunError,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// Context of [`execution_end`](LifecycleHooks::execution_end).
#[derive(Debug)]
#[non_exhaustive]
pub struct ExecutionEnd<'a> {
    /// The agent.
    pub agent: &'a str,
    /// How the run ended (`completed`, `stopped`, `paused`, `failed`, ...).
    pub status: &'a str,
    /// The final history.
    pub history: &'a [Message],
    /// How many steps ran.
    pub steps: usize,
    /// The session's metadata, which hooks read and write and an exported
    /// state keeps ([`RunMetadata`]).
    pub run_metadata: &'a RunMetadata,
}

/// The context of an event about one tool call: the tool, which
/// [`ForTools`] tests (`tools: tool` in the table).
trait ToolEvent {
    /// The tool the event is about.
    fn target(&self) -> MatchTarget<'_>;
}

impl ToolEvent for PreToolUse<'_> {
    #[inline]
    fn target(&self) -> MatchTarget<'_> {
        MatchTarget::new(self.tool, self.source).with_meta(self.meta)
    }
}

impl ToolEvent for PostToolUse<'_> {
    #[inline]
    fn target(&self) -> MatchTarget<'_> {
        MatchTarget::new(&self.call.name, self.source).with_meta(self.meta)
    }
}

/// The context of an event at the end of a step: the kind of step, which
/// [`ForTools::with_step_events`] tests (`tools: step` in the table).
trait StepEvent {
    /// The kind of step the event is at.
    fn step_kind(&self) -> StepKind;
}

impl StepEvent for StepEnd<'_> {
    #[inline]
    fn step_kind(&self) -> StepKind {
        if self.response.tool_calls.is_empty() {
            StepKind::Final
        } else {
            StepKind::Tool
        }
    }
}

impl StepEvent for StopEvent<'_> {
    #[inline]
    fn step_kind(&self) -> StepKind {
        StepKind::Final
    }
}

/// What an event answers when a hook does nothing there: the default of
/// each [`LifecycleHooks`] method, the answer of a hook [`ForTools`] does
/// not select, and that of a guarded observing hook that failed.
pub(crate) trait Quiet {
    /// The answer that changes nothing.
    fn quiet() -> Self;
}

impl Quiet for Flow {
    #[inline]
    fn quiet() -> Self {
        Self::Continue
    }
}

impl Quiet for Decision {
    #[inline]
    fn quiet() -> Self {
        Self::Continue
    }
}

impl Quiet for StopDecision {
    #[inline]
    fn quiet() -> Self {
        Self::Allow
    }
}

impl Quiet for () {
    #[inline]
    fn quiet() {}
}

/// The events, each once: the one table every implementation of
/// [`LifecycleHooks`] in this crate that forwards events is written from
/// (the trait's defaults, `&T`, `()`, tuples, [`ForTools`],
/// [`LifecycleGuard`] and `Slotted<M>`, `declare/slot.rs`), so that none
/// can miss an event. `for_each_lifecycle_event!(cb)` calls the macro `cb`
/// with every row:
///
/// ```text
/// /// The trait method's docs.
/// method(&Context) -> Answer, tools: T, fails: F;
/// ```
///
/// - `&Context` / `&mut Context`: the context struct (in this module) and
///   whether hooks may change it.
/// - `Answer`, and how several hooks (a tuple, in declared order) combine:
///   `Flow`: the first `Stop` ends the event; `()`: every hook runs;
///   `StopDecision`: the first `Continue` ends the event; `Decision` (only
///   `pre_tool_use`): each hook through [`decide`], stop or deny ends the
///   event, the first ask is kept while later hooks still run. A hook that
///   does nothing answers [`Quiet`].
/// - `tools`: what [`ForTools`] does: `all` passes every event on, `tool`
///   only those about a tool it selects ([`ToolEvent`]), `step` only those
///   at a step it selects, with [`ForTools::with_step_events`]
///   ([`StepEvent`]).
/// - `fails`: what a [`LifecycleGuard`]'s failing hook does (the module
///   docs' table): `stops(field)` closed stops the run, open restores the
///   context's `field`; `denies(field)` closed denies the call, open
///   restores `field`; `errs(field)` closed makes `field` (the call's
///   result) the error, open restores it; `observes` logs the failure and
///   answers [`Quiet`].
macro_rules! for_each_lifecycle_event {
    ($cb:ident) => {
        $cb! {
            /// Once per run, before the prompt joins the history.
            execution_start(&mut ExecutionStart) -> Flow, tools: all, fails: stops(history);
            /// Before the user's message joins the history.
            user_prompt_submit(&mut PromptSubmit) -> Flow, tools: all, fails: stops(prompt);
            /// Before each model request.
            step_start(&mut StepStart) -> Flow, tools: all, fails: stops(history);
            /// After each step.
            step_end(&mut StepEnd) -> (), tools: step, fails: observes;
            /// Before a tool call enters its chain.
            pre_tool_use(&mut PreToolUse) -> Decision, tools: tool, fails: denies(args);
            /// After a tool call succeeded.
            post_tool_use(&mut PostToolUse) -> (), tools: tool, fails: errs(outcome);
            /// After a tool call failed.
            post_tool_failure(&mut PostToolUse) -> (), tools: tool, fails: errs(outcome);
            /// When the model gave a final answer.
            stop(&mut StopEvent) -> StopDecision, tools: step, fails: observes;
            /// When the run failed.
            agent_failed(&AgentFailed) -> (), tools: all, fails: observes;
            /// Once per run, at the very end.
            execution_end(&ExecutionEnd) -> (), tools: all, fails: observes;
        }
    };
}
pub(crate) use for_each_lifecycle_event;

/// The type of a row's context, wherever a row is expanded:
/// `event_cx!(&mut StepStart)` is `&mut StepStart<'_>` of this module.
macro_rules! event_cx {
    (&mut $cx:ident) => { &mut $crate::agent::lifecycle::$cx<'_> };
    (&$cx:ident) => { &$crate::agent::lifecycle::$cx<'_> };
}
pub(crate) use event_cx;

/// One hook's answer to an event, as a combinator (a tuple, [`ForTools`],
/// [`LifecycleGuard`]) asks for it: a tool call's decision through
/// [`decide`], which records the decider; any other answer from the method.
macro_rules! call_hook {
    ($hook:expr, pre_tool_use($cx:ident) -> Decision) => {
        $crate::agent::lifecycle::decide($hook, $cx)
    };
    ($hook:expr, $m:ident($cx:ident) -> Decision) => {
        compile_error!("a `Decision` is `pre_tool_use`'s answer: `decide` records who gave it")
    };
    ($hook:expr, $m:ident($cx:ident) -> $out:tt) => {
        $hook.$m($cx)
    };
}
pub(crate) use call_hook;

/// The trait's methods, each with its docs and a default that does
/// nothing ([`Quiet`]).
macro_rules! default_events {
    ($(
        $(#[$doc:meta])*
        $m:ident($($cx:tt)+) -> $out:tt, tools: $tools:ident, fails: $fails:ident $(($f:ident))?;
    )*) => {$(
        $(#[$doc])*
        fn $m(&self, cx: event_cx!($($cx)+)) -> impl Future<Output = $out> + Send {
            let _ = cx;
            async { <$out as Quiet>::quiet() }
        }
    )*};
}

/// The list of the events' names.
macro_rules! event_names {
    ($(
        $(#[$doc:meta])*
        $m:ident($($cx:tt)+) -> $out:tt, tools: $tools:ident, fails: $fails:ident $(($f:ident))?;
    )*) => {
        /// Every lifecycle event, by the name of its [`LifecycleHooks`]
        /// method (also its spelling in the card vocabulary,
        /// [`HookEvent`](crate::agent::HookEvent)), in the trait's order.
        pub const EVENTS: &[&str] = &[$(stringify!($m)),*];
    };
}
for_each_lifecycle_event!(event_names);

/// Hooks at the seams of an agent run. Every method has a no-op default;
/// implement the ones you need. See the [module docs](self) for what each
/// may change and whether it can block.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a lifecycle hook",
    note = "lifecycle hooks implement `hookwire::agent::lifecycle::LifecycleHooks` (every method has a default); several hooks are a tuple `(A, B)`, no hooks is `()`"
)]
pub trait LifecycleHooks: Send + Sync {
    /// Whether these are no hooks at all: `()`, and references and tuples
    /// of nothing else. The loop then calls none of them (and puts no
    /// panic guard around each), at every step and call. Leave it `false`
    /// (the default) in your own implementations.
    #[doc(hidden)]
    const NONE: bool = false;

    for_each_lifecycle_event!(default_events);

    /// The hook's name, in traces.
    fn name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// Runs `pre_tool_use` of one hook and records its name as the decider when
/// it did not continue (and no inner combinator recorded one).
pub async fn decide<H: LifecycleHooks + ?Sized>(hook: &H, cx: &mut PreToolUse<'_>) -> Decision {
    let before = cx.decided_by;
    cx.decided_by = None;
    let decision = hook.pre_tool_use(cx).await;
    if decision == Decision::Continue {
        cx.decided_by = before;
    } else if cx.decided_by.is_none() {
        cx.decided_by = Some(hook.name());
    }
    decision
}

/// A hook whose tool events (`pre_tool_use`, `post_tool_use`,
/// `post_tool_failure`) fire only for the tools `select` selects (a
/// [`Matcher`] by default, or any [`Predicate`] over the tool's
/// [`MatchTarget`], its name, source and metadata); its other
/// events fire as usual. With [`ForTools::with_step_events`] (what a
/// matcher with a `step:` part gets) `stop` and `step_end` fire only for
/// the steps it selects too: `stop` is the final answer
/// ([`StepKind::Final`](hookwire_chain::matcher::StepKind)), `step_end` the final
/// answer or a tool step (`step:tool`).
///
/// ```
/// use hookwire::agent::lifecycle::{ForTools, LifecycleHooks};
/// use hookwire::matcher::{MatchTarget, Matcher};
/// use hookwire::ToolSource;
/// struct Audit;
/// impl LifecycleHooks for Audit {}
/// let shell_tools: ForTools<Audit> = ForTools::new(Matcher::parse("shell*").unwrap(), Audit);
/// let only_mcp = ForTools::new(|t: &MatchTarget<'_>| t.source == ToolSource::Mcp, Audit);
/// # let _ = (shell_tools, only_mcp);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ForTools<H, S = Matcher> {
    select: S,
    hook: H,
    steps: bool,
}

impl<H, S: for<'a> Predicate<MatchTarget<'a>>> ForTools<H, S> {
    /// `hook`, for the tools `select` selects.
    pub const fn new(select: S, hook: H) -> Self {
        Self {
            select,
            hook,
            steps: false,
        }
    }

    /// `stop` and `step_end` fire only for the steps `select` selects.
    #[must_use]
    pub fn with_step_events(mut self) -> Self {
        self.steps = true;
        self
    }

    /// Whether an event of a step of kind `step` fires.
    fn fires_at(&self, step: StepKind) -> bool {
        !self.steps || self.select.test(&MatchTarget::step(step))
    }
}

/// [`ForTools`]' events: passed on (`all`), or asked of the hook only for
/// the tools (`tool`) or steps (`step`) it selects.
macro_rules! for_tools_events {
    ($(
        $(#[$doc:meta])*
        $m:ident($($cx:tt)+) -> $out:tt, tools: $tools:ident, fails: $fails:ident $(($f:ident))?;
    )*) => {
        impl<H: LifecycleHooks, S: for<'a> Predicate<MatchTarget<'a>>> LifecycleHooks
            for ForTools<H, S>
        {
            $( for_tools_events!(@$tools $m($($cx)+) -> $out); )*

            fn name(&self) -> &'static str {
                self.hook.name()
            }
        }
    };
    (@all $m:ident($($cx:tt)+) -> $out:tt) => {
        fn $m(&self, cx: event_cx!($($cx)+)) -> impl Future<Output = $out> + Send {
            self.hook.$m(cx)
        }
    };
    (@tool $m:ident($($cx:tt)+) -> $out:tt) => {
        fn $m(&self, cx: event_cx!($($cx)+)) -> impl Future<Output = $out> + Send {
            async move {
                if self.select.test(&cx.target()) {
                    call_hook!(&self.hook, $m(cx) -> $out).await
                } else {
                    <$out as Quiet>::quiet()
                }
            }
        }
    };
    (@step $m:ident($($cx:tt)+) -> $out:tt) => {
        fn $m(&self, cx: event_cx!($($cx)+)) -> impl Future<Output = $out> + Send {
            async move {
                if self.fires_at(cx.step_kind()) {
                    call_hook!(&self.hook, $m(cx) -> $out).await
                } else {
                    <$out as Quiet>::quiet()
                }
            }
        }
    };
}
for_each_lifecycle_event!(for_tools_events);

#[cfg(test)]
mod tests;
