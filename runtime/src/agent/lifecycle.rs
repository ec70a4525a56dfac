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
//! | [`step_end`](LifecycleHooks::step_end) | after the model answered and its tool calls ran | nothing (observes) | no |
//! | [`pre_tool_use`](LifecycleHooks::pre_tool_use) | before each tool call enters its chain | the arguments | yes: deny, ask, stop ([`Decision`]) |
//! | [`post_tool_use`](LifecycleHooks::post_tool_use) | after a call that succeeded | the result | no |
//! | [`post_tool_failure`](LifecycleHooks::post_tool_failure) | after a call that failed (error or error result) | the result (a hook may recover) | no |
//! | [`stop`](LifecycleHooks::stop) | when the model gave a final answer | nothing | no, but [`StopDecision::Continue`] forces another step (capped by the loop guard) |
//! | [`agent_failed`](LifecycleHooks::agent_failed) | when the run fails (model error, step limit) | nothing (observes) | no |
//! | [`execution_end`](LifecycleHooks::execution_end) | once per run, at the very end | nothing (observes) | no |
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

use crate::context::ToolSource;
pub use crate::decision::{Flow, StopDecision};
use crate::model::{Message, ModelResponse};
use crate::predicate::Predicate;
use crate::prepost::Decision;
use hookwire_chain::call::{Outcome, ToolArgs, ToolCall};
use hookwire_chain::matcher::{MatchTarget, Matcher};

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
}

/// Context of [`user_prompt_submit`](LifecycleHooks::user_prompt_submit).
#[derive(Debug)]
#[non_exhaustive]
pub struct PromptSubmit<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The prompt; hooks may rewrite it.
    pub prompt: &'a mut String,
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
}

/// Context of [`agent_failed`](LifecycleHooks::agent_failed).
#[derive(Debug)]
#[non_exhaustive]
pub struct AgentFailed<'a> {
    /// The agent.
    pub agent: &'a str,
    /// What went wrong.
    pub error: &'a crate::agent::RunError,
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
}

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

    /// Once per run, before the prompt joins the history.
    fn execution_start(&self, cx: &mut ExecutionStart<'_>) -> impl Future<Output = Flow> + Send {
        let _ = cx;
        async { Flow::Continue }
    }

    /// Before the user's message joins the history.
    fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> impl Future<Output = Flow> + Send {
        let _ = cx;
        async { Flow::Continue }
    }

    /// Before each model request.
    fn step_start(&self, cx: &mut StepStart<'_>) -> impl Future<Output = Flow> + Send {
        let _ = cx;
        async { Flow::Continue }
    }

    /// After each step.
    fn step_end(&self, cx: &StepEnd<'_>) -> impl Future<Output = ()> + Send {
        let _ = cx;
        async {}
    }

    /// Before a tool call enters its chain.
    fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> impl Future<Output = Decision> + Send {
        let _ = cx;
        async { Decision::Continue }
    }

    /// After a tool call succeeded.
    fn post_tool_use(&self, cx: &mut PostToolUse<'_>) -> impl Future<Output = ()> + Send {
        let _ = cx;
        async {}
    }

    /// After a tool call failed.
    fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) -> impl Future<Output = ()> + Send {
        let _ = cx;
        async {}
    }

    /// When the model gave a final answer.
    fn stop(&self, cx: &StopEvent<'_>) -> impl Future<Output = StopDecision> + Send {
        let _ = cx;
        async { StopDecision::Allow }
    }

    /// When the run failed.
    fn agent_failed(&self, cx: &AgentFailed<'_>) -> impl Future<Output = ()> + Send {
        let _ = cx;
        async {}
    }

    /// Once per run, at the very end.
    fn execution_end(&self, cx: &ExecutionEnd<'_>) -> impl Future<Output = ()> + Send {
        let _ = cx;
        async {}
    }

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

impl<T: LifecycleHooks + ?Sized> LifecycleHooks for &T {
    const NONE: bool = T::NONE;

    fn execution_start(&self, cx: &mut ExecutionStart<'_>) -> impl Future<Output = Flow> + Send {
        (**self).execution_start(cx)
    }
    fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> impl Future<Output = Flow> + Send {
        (**self).user_prompt_submit(cx)
    }
    fn step_start(&self, cx: &mut StepStart<'_>) -> impl Future<Output = Flow> + Send {
        (**self).step_start(cx)
    }
    fn step_end(&self, cx: &StepEnd<'_>) -> impl Future<Output = ()> + Send {
        (**self).step_end(cx)
    }
    fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> impl Future<Output = Decision> + Send {
        (**self).pre_tool_use(cx)
    }
    fn post_tool_use(&self, cx: &mut PostToolUse<'_>) -> impl Future<Output = ()> + Send {
        (**self).post_tool_use(cx)
    }
    fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) -> impl Future<Output = ()> + Send {
        (**self).post_tool_failure(cx)
    }
    fn stop(&self, cx: &StopEvent<'_>) -> impl Future<Output = StopDecision> + Send {
        (**self).stop(cx)
    }
    fn agent_failed(&self, cx: &AgentFailed<'_>) -> impl Future<Output = ()> + Send {
        (**self).agent_failed(cx)
    }
    fn execution_end(&self, cx: &ExecutionEnd<'_>) -> impl Future<Output = ()> + Send {
        (**self).execution_end(cx)
    }
    fn name(&self) -> &'static str {
        (**self).name()
    }
}

/// No lifecycle hooks.
impl LifecycleHooks for () {
    const NONE: bool = true;

    fn name(&self) -> &'static str {
        "none"
    }
}

macro_rules! tuple_hooks {
    ($($h:ident),+) => {
        #[allow(non_snake_case)]
        impl<$($h: LifecycleHooks),+> LifecycleHooks for ($($h,)+) {
            const NONE: bool = $($h::NONE &&)+ true;

            async fn execution_start(&self, cx: &mut ExecutionStart<'_>) -> Flow {
                let ($($h,)+) = self;
                $( if let Flow::Stop(r) = $h.execution_start(cx).await { return Flow::Stop(r); } )+
                Flow::Continue
            }
            async fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> Flow {
                let ($($h,)+) = self;
                $( if let Flow::Stop(r) = $h.user_prompt_submit(cx).await { return Flow::Stop(r); } )+
                Flow::Continue
            }
            async fn step_start(&self, cx: &mut StepStart<'_>) -> Flow {
                let ($($h,)+) = self;
                $( if let Flow::Stop(r) = $h.step_start(cx).await { return Flow::Stop(r); } )+
                Flow::Continue
            }
            async fn step_end(&self, cx: &StepEnd<'_>) {
                let ($($h,)+) = self;
                $( $h.step_end(cx).await; )+
            }
            async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
                let ($($h,)+) = self;
                let mut ask: Option<(String, Option<&'static str>)> = None;
                $(
                    match decide($h, cx).await {
                        Decision::Continue => {}
                        Decision::Ask(reason) => {
                            if ask.is_none() { ask = Some((reason, cx.decided_by)); }
                            cx.decided_by = None;
                        }
                        other => return other,
                    }
                )+
                match ask {
                    Some((reason, by)) => { cx.decided_by = by; Decision::Ask(reason) }
                    None => Decision::Continue,
                }
            }
            async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
                let ($($h,)+) = self;
                $( $h.post_tool_use(cx).await; )+
            }
            async fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) {
                let ($($h,)+) = self;
                $( $h.post_tool_failure(cx).await; )+
            }
            async fn stop(&self, cx: &StopEvent<'_>) -> StopDecision {
                let ($($h,)+) = self;
                $( if let StopDecision::Continue(m) = $h.stop(cx).await { return StopDecision::Continue(m); } )+
                StopDecision::Allow
            }
            async fn agent_failed(&self, cx: &AgentFailed<'_>) {
                let ($($h,)+) = self;
                $( $h.agent_failed(cx).await; )+
            }
            async fn execution_end(&self, cx: &ExecutionEnd<'_>) {
                let ($($h,)+) = self;
                $( $h.execution_end(cx).await; )+
            }
            fn name(&self) -> &'static str {
                "hooks"
            }
        }
    };
}

tuple_hooks!(A);
tuple_hooks!(A, B);
tuple_hooks!(A, B, C);
tuple_hooks!(A, B, C, D);
tuple_hooks!(A, B, C, D, E);
tuple_hooks!(A, B, C, D, E, F);
tuple_hooks!(A, B, C, D, E, F, G);
tuple_hooks!(A, B, C, D, E, F, G, H);
tuple_hooks!(A, B, C, D, E, F, G, H, I);
tuple_hooks!(A, B, C, D, E, F, G, H, I, J);
tuple_hooks!(A, B, C, D, E, F, G, H, I, J, K);
tuple_hooks!(A, B, C, D, E, F, G, H, I, J, K, L);

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
    fn fires_at(&self, step: hookwire_chain::matcher::StepKind) -> bool {
        !self.steps || self.select.test(&MatchTarget::step(step))
    }
}

impl<H: LifecycleHooks, S: for<'a> Predicate<MatchTarget<'a>>> LifecycleHooks for ForTools<H, S> {
    fn execution_start(&self, cx: &mut ExecutionStart<'_>) -> impl Future<Output = Flow> + Send {
        self.hook.execution_start(cx)
    }
    fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> impl Future<Output = Flow> + Send {
        self.hook.user_prompt_submit(cx)
    }
    fn step_start(&self, cx: &mut StepStart<'_>) -> impl Future<Output = Flow> + Send {
        self.hook.step_start(cx)
    }
    async fn step_end(&self, cx: &StepEnd<'_>) {
        let step = if cx.response.tool_calls.is_empty() {
            hookwire_chain::matcher::StepKind::Final
        } else {
            hookwire_chain::matcher::StepKind::Tool
        };
        if self.fires_at(step) {
            self.hook.step_end(cx).await;
        }
    }
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        if self
            .select
            .test(&MatchTarget::new(cx.tool, cx.source).with_meta(cx.meta))
        {
            decide(&self.hook, cx).await
        } else {
            Decision::Continue
        }
    }
    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        if self
            .select
            .test(&MatchTarget::new(&cx.call.name, cx.source).with_meta(cx.meta))
        {
            self.hook.post_tool_use(cx).await;
        }
    }
    async fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) {
        if self
            .select
            .test(&MatchTarget::new(&cx.call.name, cx.source).with_meta(cx.meta))
        {
            self.hook.post_tool_failure(cx).await;
        }
    }
    async fn stop(&self, cx: &StopEvent<'_>) -> StopDecision {
        if self.fires_at(hookwire_chain::matcher::StepKind::Final) {
            self.hook.stop(cx).await
        } else {
            StopDecision::Allow
        }
    }
    fn agent_failed(&self, cx: &AgentFailed<'_>) -> impl Future<Output = ()> + Send {
        self.hook.agent_failed(cx)
    }
    fn execution_end(&self, cx: &ExecutionEnd<'_>) -> impl Future<Output = ()> + Send {
        self.hook.execution_end(cx)
    }
    fn name(&self) -> &'static str {
        self.hook.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counts;
    impl LifecycleHooks for Counts {}

    /// The loop skips the calls of hooks that are none at all, and only
    /// of those: one real hook anywhere in a tuple (or behind a
    /// reference) keeps every call.
    #[test]
    fn only_no_hooks_at_all_are_none() {
        fn none<L: LifecycleHooks>() -> bool {
            L::NONE
        }
        assert_eq!(
            [
                none::<()>(),
                none::<((), &())>(),
                none::<&((),)>(),
                none::<Counts>(),
                none::<((), Counts)>(),
                none::<(Counts, &())>(),
                none::<&Counts>(),
            ],
            [true, true, true, false, false, false, false]
        );
    }
}
