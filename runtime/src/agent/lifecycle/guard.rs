//! A lifecycle hook with a failure policy and a timeout ([`LifecycleGuard`]).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::FutureExt;

use super::{
    Flow, LifecycleHooks, Quiet, StopDecision, call_hook, event_cx, for_each_lifecycle_event,
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
/// purpose, return [`Decision::Deny`] or [`Flow::Stop`]). What the failure
/// does at each event, closed and open, is in the
/// [module docs](super#when-a-guarded-hook-fails): closed, a call is
/// denied, a call's result becomes the error, or the run stops; open, the
/// hook is skipped, and what it changed is as before it; an observing
/// event logs it and goes on.
///
/// Without a policy ([`LifecycleGuard::new`] alone, or only a timeout), each
/// event keeps the default of an unguarded hook: closed where the hook can
/// block (the run, or the call: the module docs' table says where), open
/// elsewhere. Every failure is logged (target `hookwire::audit`).
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
        outcome: &mut Outcome,
        before: Option<Outcome>,
    ) {
        if let Err(why) = result {
            self.log(&why, before.is_none());
            *outcome = match before {
                Some(before) => before,
                None => Err(self.error(why)),
            };
        }
    }

    /// The end of a tool call's decision: a failure denies the call
    /// (closed, `before` is `None`) or restores the arguments and the
    /// decider to `before` (open).
    fn decision<A>(
        &self,
        result: Result<Decision, String>,
        args: &mut A,
        decided_by: &mut Option<&'static str>,
        before: Option<(A, Option<&'static str>)>,
    ) -> Decision {
        let why = match result {
            Ok(decision) => return decision,
            Err(why) => why,
        };
        self.log(&why, before.is_none());
        match before {
            Some((before, by)) => {
                *args = before;
                *decided_by = by;
                Decision::Continue
            }
            None => {
                *decided_by = Some(self.hook.name());
                Decision::Deny(self.error(why).to_string())
            }
        }
    }

    /// What an open failure at an event restores: a copy of `state`, taken
    /// only when the event's failure does not close.
    fn keep<S: Clone>(&self, blocking: bool, state: &S) -> Option<S> {
        (!self.closes(blocking)).then(|| state.clone())
    }

    /// The end of an observing event: a failure is logged, and the event
    /// goes on as if the hook did nothing.
    fn observed<T: Quiet>(&self, result: Result<T, String>) -> T {
        result.unwrap_or_else(|why| {
            self.log(&why, false);
            T::quiet()
        })
    }
}

/// The guard's events: each method of the hook under the timeout, and its
/// failure handled as the table's `fails` says.
macro_rules! guard_events {
    ($(
        $(#[$doc:meta])*
        $m:ident($($cx:tt)+) -> $out:tt, tools: $tools:ident, fails: $fails:ident $(($f:ident))?;
    )*) => {
        impl<H: LifecycleHooks> LifecycleHooks for LifecycleGuard<H> {
            $(
                fn $m(&self, cx: event_cx!($($cx)+)) -> impl Future<Output = $out> + Send {
                    async move { guard_events!(@$fails $(($f))? self, $m(cx) -> $out) }
                }
            )*

            fn name(&self) -> &'static str {
                self.hook.name()
            }
        }
    };
    // Closed, the run stops; open, `field` is as before the hook.
    (@stops($field:ident) $self:ident, $m:ident($cx:ident) -> $out:tt) => {{
        let before = $self.keep(true, &*$cx.$field);
        let result = $self.attempt(stringify!($m), call_hook!(&$self.hook, $m($cx) -> $out)).await;
        $self.flow(result, $cx.$field, before)
    }};
    // Closed, the call is denied; open, `field` and the decider are as
    // before the hook.
    (@denies($field:ident) $self:ident, $m:ident($cx:ident) -> $out:tt) => {{
        let before = $self.keep(true, &*$cx.$field).map(|kept| (kept, $cx.decided_by));
        let result = $self.attempt(stringify!($m), call_hook!(&$self.hook, $m($cx) -> $out)).await;
        $self.decision(result, &mut *$cx.$field, &mut $cx.decided_by, before)
    }};
    // Closed, `field` (the call's result) becomes the error; open, it is
    // as before the hook.
    (@errs($field:ident) $self:ident, $m:ident($cx:ident) -> $out:tt) => {{
        let before = $self.keep(false, &*$cx.$field);
        let result = $self.attempt(stringify!($m), call_hook!(&$self.hook, $m($cx) -> $out)).await;
        $self.after_call(result, $cx.$field, before)
    }};
    // Logged, and the event goes on.
    (@observes $self:ident, $m:ident($cx:ident) -> $out:tt) => {{
        let result = $self.attempt(stringify!($m), call_hook!(&$self.hook, $m($cx) -> $out)).await;
        $self.observed(result)
    }};
}
for_each_lifecycle_event!(guard_events);
