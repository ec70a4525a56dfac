//! A lifecycle hook with a failure policy and a timeout ([`LifecycleGuard`]).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::FutureExt;

use super::{
    AgentFailed, ExecutionEnd, ExecutionStart, Flow, LifecycleHooks, PostToolUse, PreToolUse,
    PromptSubmit, StepEnd, StepStart, StopDecision, StopEvent, decide,
};
use crate::error::{ToolError, panic_message};
use crate::policy::FailurePolicy;
use crate::prepost::Decision;
use hookwire_chain::call::Outcome;

/// A lifecycle hook with a failure policy and an optional timeout, as
/// [`crate::Guarded`] is for a chain hook: what `#[agent(hooks =
/// [Audit(on_failure = "open", timeout_ms = 50)])]` and a card's `hooks:`
/// entry with `on_failure` / `timeout_ms` generate, and what
/// [`Runner::with_hooks`](crate::agent::Runner::with_hooks) takes as
/// `LifecycleGuard::new(Audit).with_policy(..).with_timeout(..)`.
///
/// A lifecycle hook fails when one of its methods panics or runs past the
/// timeout (its methods return decisions, not errors: to refuse on
/// purpose, return [`Decision::Deny`] or [`Flow::Stop`]). Then:
///
/// | event | fail closed | fail open |
/// |---|---|---|
/// | `pre_tool_use` | the call is denied; the model reads ``tool call denied by `H`: hook `H` failed: pre_tool_use panicked: ..`` | the hook is skipped: the arguments as before it, the call goes on |
/// | `post_tool_use`, `post_tool_failure` | the call's result becomes the error ``hook `H` failed: post_tool_use timed out after 50 ms`` | the hook is skipped: the result as before it |
/// | `execution_start`, `user_prompt_submit`, `step_start` | the run stops with that reason | the hook is skipped: the history (or prompt) as before it |
/// | `step_end`, `stop`, `agent_failed`, `execution_end` | logged and skipped (these observe; `stop` allows the stop) | the same |
///
/// Without a policy ([`LifecycleGuard::new`] alone, or only a timeout), each
/// event keeps the default of an unguarded hook: closed where the hook can
/// block (`execution_start`, `user_prompt_submit`, `step_start`,
/// `pre_tool_use`), open elsewhere. Every failure is logged (target
/// `hookwire::audit`).
///
/// The timeout covers the hook's own method only. A `pre_tool_use` that
/// returns [`Decision::Ask`] has returned: the approval it asks for is
/// waited for by the loop afterwards, so waiting for a person never counts
/// against the hook's timeout.
///
/// ```
/// use std::time::Duration;
/// use hookwire::FailurePolicy;
/// use hookwire::agent::lifecycle::{LifecycleGuard, LifecycleHooks};
///
/// /// Audits every call.
/// struct Audit;
/// impl LifecycleHooks for Audit {}
///
/// let guarded = LifecycleGuard::new(Audit)
///     .with_policy(FailurePolicy::FailOpen)
///     .with_timeout(Duration::from_millis(50));
/// assert_eq!(guarded.policy(), Some(FailurePolicy::FailOpen));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LifecycleGuard<H> {
    hook: H,
    policy: Option<FailurePolicy>,
    timeout: Option<Duration>,
}

impl<H> LifecycleGuard<H> {
    /// `hook` with each event's default policy and no timeout.
    pub const fn new(hook: H) -> Self {
        Self {
            hook,
            policy: None,
            timeout: None,
        }
    }

    /// Sets the failure policy, for every event.
    #[must_use]
    pub fn with_policy(mut self, policy: FailurePolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Sets the timeout of each of the hook's methods.
    #[must_use]
    pub fn with_timeout(mut self, after: Duration) -> Self {
        self.timeout = Some(after);
        self
    }

    /// The policy, `None` for each event's default.
    pub fn policy(&self) -> Option<FailurePolicy> {
        self.policy
    }

    /// The timeout.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }
}

impl<H: LifecycleHooks> LifecycleGuard<H> {
    /// Runs one method of the hook: its panic or its timeout is
    /// `Err(why)`, such as `pre_tool_use panicked: boom`.
    async fn attempt<T>(
        &self,
        event: &'static str,
        fut: impl Future<Output = T>,
    ) -> Result<T, String> {
        let caught = AssertUnwindSafe(fut).catch_unwind();
        let result = match self.timeout {
            None => caught.await,
            Some(after) => match crate::wait::limit(after, caught).await {
                Ok(result) => result,
                Err(_) => {
                    return Err(format!("{event} timed out after {} ms", after.as_millis()));
                }
            },
        };
        result.map_err(|payload| format!("{event} {}", panic_message(&*payload)))
    }

    /// Whether a failure at an event closes: the policy, or else the
    /// event's default (closed where the hook can block).
    fn closes(&self, blocking: bool) -> bool {
        match self.policy {
            Some(FailurePolicy::FailClosed) => true,
            Some(FailurePolicy::FailOpen) => false,
            None => blocking,
        }
    }

    /// The error a closed failure gives: ``hook `H` failed: <why>``.
    fn error(&self, why: String) -> ToolError {
        ToolError::HookFailed {
            hook: self.hook.name().into(),
            message: why,
        }
    }

    /// Logs a failure and what became of it.
    fn log(&self, why: &str, closed: bool) {
        tracing::warn!(
            target: "hookwire::audit",
            hook = self.hook.name(),
            reason = %why,
            decision = if closed { "closed" } else { "skipped" },
            "lifecycle hook failed"
        );
    }

    /// The end of a blocking event that answers with a [`Flow`]: a failure
    /// stops the run (closed, `before` is `None`) or restores `state` to
    /// `before`, as it was before the hook (open).
    fn flow<S>(&self, result: Result<Flow, String>, state: &mut S, before: Option<S>) -> Flow {
        let why = match result {
            Ok(flow) => return flow,
            Err(why) => why,
        };
        self.log(&why, before.is_none());
        match before {
            Some(before) => {
                *state = before;
                Flow::Continue
            }
            None => Flow::Stop(self.error(why).to_string()),
        }
    }

    /// The end of a tool event after the call: a failure makes the result
    /// an error (closed, `before` is `None`) or restores it to `before` (open).
    fn after_call(
        &self,
        result: Result<(), String>,
        cx: &mut PostToolUse<'_>,
        before: Option<Outcome>,
    ) {
        if let Err(why) = result {
            self.log(&why, before.is_none());
            *cx.outcome = match before {
                Some(before) => before,
                None => Err(self.error(why)),
            };
        }
    }

    /// What an open failure at an event restores: a copy of `state`, taken
    /// only when the event's failure does not close.
    fn keep<S: Clone>(&self, blocking: bool, state: &S) -> Option<S> {
        (!self.closes(blocking)).then(|| state.clone())
    }

    /// An observing event: a failure is logged, and the event goes on.
    async fn observe(&self, event: &'static str, fut: impl Future<Output = ()>) {
        if let Err(why) = self.attempt(event, fut).await {
            self.log(&why, false);
        }
    }
}

impl<H: LifecycleHooks> LifecycleHooks for LifecycleGuard<H> {
    async fn execution_start(&self, cx: &mut ExecutionStart<'_>) -> Flow {
        let before = self.keep(true, &*cx.history);
        let result = self
            .attempt("execution_start", self.hook.execution_start(cx))
            .await;
        self.flow(result, cx.history, before)
    }

    async fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> Flow {
        let before = self.keep(true, &*cx.prompt);
        let result = self
            .attempt("user_prompt_submit", self.hook.user_prompt_submit(cx))
            .await;
        self.flow(result, cx.prompt, before)
    }

    async fn step_start(&self, cx: &mut StepStart<'_>) -> Flow {
        let before = self.keep(true, &*cx.history);
        let result = self.attempt("step_start", self.hook.step_start(cx)).await;
        self.flow(result, cx.history, before)
    }

    async fn step_end(&self, cx: &StepEnd<'_>) {
        self.observe("step_end", self.hook.step_end(cx)).await;
    }

    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        let before = (!self.closes(true)).then(|| (cx.args.clone(), cx.decided_by));
        match self.attempt("pre_tool_use", decide(&self.hook, cx)).await {
            Ok(decision) => decision,
            Err(why) => {
                self.log(&why, before.is_none());
                match before {
                    Some((args, decided_by)) => {
                        *cx.args = args;
                        cx.decided_by = decided_by;
                        Decision::Continue
                    }
                    None => {
                        cx.decided_by = Some(self.hook.name());
                        Decision::Deny(self.error(why).to_string())
                    }
                }
            }
        }
    }

    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        let before = self.keep(false, &*cx.outcome);
        let result = self
            .attempt("post_tool_use", self.hook.post_tool_use(cx))
            .await;
        self.after_call(result, cx, before);
    }

    async fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) {
        let before = self.keep(false, &*cx.outcome);
        let result = self
            .attempt("post_tool_failure", self.hook.post_tool_failure(cx))
            .await;
        self.after_call(result, cx, before);
    }

    async fn stop(&self, cx: &StopEvent<'_>) -> StopDecision {
        match self.attempt("stop", self.hook.stop(cx)).await {
            Ok(decision) => decision,
            Err(why) => {
                self.log(&why, false);
                StopDecision::Allow
            }
        }
    }

    async fn agent_failed(&self, cx: &AgentFailed<'_>) {
        self.observe("agent_failed", self.hook.agent_failed(cx))
            .await;
    }

    async fn execution_end(&self, cx: &ExecutionEnd<'_>) {
        self.observe("execution_end", self.hook.execution_end(cx))
            .await;
    }

    fn name(&self) -> &'static str {
        self.hook.name()
    }
}
