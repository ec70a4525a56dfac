//! Per-hook failure policy and timeout.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::future::Either;

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::error::{ToolError, panic_message};
use crate::hook::{Handler, Hook, Next, panic_is_attributed};

pub use hookwire_spec::FailurePolicy;

/// A hook with a failure policy and an optional timeout.
///
/// Under [`FailurePolicy::FailOpen`] a failing hook is skipped:
/// * if it failed before calling `next`, the rest of the chain runs with the
///   arguments the hook received;
/// * if it failed after `next` returned, the outcome `next` returned is used;
/// * if its timeout fired while `next` was still running, the call ends with
///   [`ToolError::TimedOut`]: running the tool a second time would be worse.
///
/// To do this a fail-open hook keeps a copy of its arguments and of the
/// inner outcome, so it costs a clone per call; fail-closed hooks cost
/// nothing extra. The timeout (not counting an approval wait inside it)
/// covers the hook's own work and, for an around
/// hook, everything inside it.
///
/// A hook that fails by returning an error signals it with
/// `Err(ToolError::HookFailed { .. })` (pre and post hooks do this for you).
///
/// Panics: a `Guarded` hook catches its own panics (one `catch_unwind` per
/// call), so hooks outside it see its failure as an `Err` from `next`. A
/// panic further in (a plain [`Hooked`](crate::Hooked) or the tool) is not its
/// failure: it goes on to the root of the call
/// ([`catch_panics`](crate::catch_panics)), which ends the call with an
/// error naming the hook or tool that panicked.
#[derive(Debug, Clone)]
pub struct Guarded<H> {
    hook: H,
    policy: FailurePolicy,
    timeout: Option<Duration>,
}

impl<H> Guarded<H> {
    /// `hook` with `policy` and an optional timeout.
    pub const fn new(hook: H, policy: FailurePolicy, timeout: Option<Duration>) -> Self {
        Self {
            hook,
            policy,
            timeout,
        }
    }

    /// The policy.
    pub fn policy(&self) -> FailurePolicy {
        self.policy
    }

    /// The timeout.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }
}

enum Failure {
    Panicked(String),
    TimedOut(Duration),
}

impl<H: Hook> Guarded<H> {
    /// The hook around `next`, with its own panics caught and its timeout
    /// applied through [`wait::limit`](crate::wait::limit), the one time
    /// limit (an approval wait inside does not count). Without a timeout
    /// it is one named future, so a `Guarded` hook adds no more nesting
    /// than a plain one.
    fn run_hook<'a, N: Handler>(
        &'a self,
        cx: &'a mut ToolContext,
        args: ToolArgs,
        next: Next<'a, N>,
    ) -> impl Future<Output = Result<Outcome, Failure>> + Send + 'a {
        let caught = RunHook {
            future: self.hook.around(cx, args, next),
        };
        match self.timeout {
            None => Either::Left(caught),
            Some(after) => Either::Right(async move {
                crate::wait::limit(after, caught)
                    .await
                    .unwrap_or(Err(Failure::TimedOut(after)))
            }),
        }
    }

    fn failure_error(&self, failure: Failure) -> ToolError {
        match failure {
            Failure::Panicked(message) => ToolError::HookFailed {
                hook: self.hook.name().into(),
                message,
            },
            Failure::TimedOut(after) => ToolError::TimedOut {
                what: format!("hook `{}`", self.hook.name()),
                after,
            },
        }
    }
}

pin_project_lite::pin_project! {
    /// A guarded hook's future: a panic while it is polled is the hook's
    /// failure (unless a layer or tool inside attributed it: that one goes
    /// on to the root of the call).
    struct RunHook<F> {
        #[pin]
        future: F,
    }
}

impl<F: Future<Output = Outcome>> Future for RunHook<F> {
    type Output = Result<Outcome, Failure>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = self.project().future;
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Ready(outcome)) => Poll::Ready(Ok(outcome)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => {
                // A panic that a layer or tool inside `next` attributed is
                // not this hook's failure: let it go on to the root of the
                // call, which names the culprit.
                if panic_is_attributed() {
                    std::panic::resume_unwind(payload);
                }
                Poll::Ready(Err(Failure::Panicked(panic_message(&*payload))))
            }
        }
    }
}

enum Probe {
    NotCalled,
    Running,
    Done(Outcome),
}

/// Records whether, and with what outcome, a fail-open hook called `next`.
struct Recorder<'a, N: ?Sized> {
    inner: Next<'a, N>,
    state: Mutex<Probe>,
}

impl<N: Handler + ?Sized> Handler for Recorder<'_, N> {
    async fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> Outcome {
        self.set(Probe::Running);
        let outcome = self.inner.run(cx, args).await;
        self.set(Probe::Done(outcome.clone()));
        outcome
    }

    fn tool_view(&self) -> Option<crate::ToolView> {
        self.inner.tool_view()
    }
}

impl<N: ?Sized> Recorder<'_, N> {
    fn set(&self, probe: Probe) {
        match self.state.lock() {
            Ok(mut state) => *state = probe,
            Err(poisoned) => *poisoned.into_inner() = probe,
        }
    }

    fn take(self) -> Probe {
        match self.state.into_inner() {
            Ok(probe) => probe,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

impl<H: Hook> Hook for Guarded<H> {
    const REWRITES: bool = H::REWRITES;
    const PHASE: hookwire_spec::HookKind = H::PHASE;

    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        match self.policy {
            FailurePolicy::FailClosed => match self.run_hook(cx, args, next).await {
                Ok(outcome) => outcome,
                Err(failure) => Err(self.failure_error(failure)),
            },
            FailurePolicy::FailOpen => {
                let original = args.clone();
                let recorder = Recorder {
                    inner: next,
                    state: Mutex::new(Probe::NotCalled),
                };
                let result = self.run_hook(cx, args, Next::new(&recorder)).await;
                let reason = match result {
                    Ok(Err(ToolError::HookFailed { hook, message }))
                        if hook == self.hook.name() =>
                    {
                        message
                    }
                    Ok(outcome) => return outcome,
                    Err(failure) => self.failure_error(failure).to_string(),
                };
                match recorder.take() {
                    Probe::NotCalled => {
                        tracing::warn!(
                            target: "hookwire::audit",
                            hook = self.hook.name(),
                            tool = cx.tool(),
                            reason = %reason,
                            decision = "skipped",
                            "fail-open hook failed before the call; skipping it"
                        );
                        next.run(cx, original).await
                    }
                    Probe::Done(outcome) => {
                        tracing::warn!(
                            target: "hookwire::audit",
                            hook = self.hook.name(),
                            tool = cx.tool(),
                            reason = %reason,
                            decision = "skipped",
                            "fail-open hook failed after the call; keeping the inner outcome"
                        );
                        outcome
                    }
                    Probe::Running => Err(ToolError::TimedOut {
                        what: format!("hook `{}` (around a running call)", self.hook.name()),
                        after: self.timeout.unwrap_or_default(),
                    }),
                }
            }
        }
    }

    fn name(&self) -> &'static str {
        self.hook.name()
    }
}
