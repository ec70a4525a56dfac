use std::time::Duration;

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::hook::{Handler, Hook, Next};

/// Runs the rest of the chain again when it fails with a retryable error
/// ([`ToolError::is_retryable`](crate::ToolError::is_retryable): timeouts
/// and tool failures marked retryable), waiting `initial_backoff`,
/// then twice as long each time (capped at `max_backoff`), up to
/// `max_attempts` attempts in all. Other errors and successes return at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    max_attempts: u32,
    initial_backoff: Duration,
    max_backoff: Duration,
}

/// How many attempts the innermost [`Retry`] made, left in the context's
/// extensions for outer hooks to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempts(pub u32);

impl Retry {
    /// Up to `max_attempts` attempts (at least one), starting with
    /// `initial_backoff` between them.
    pub fn new(max_attempts: u32, initial_backoff: Duration) -> Self {
        Self {
            max_attempts: max_attempts.max(1),
            initial_backoff,
            max_backoff: Duration::from_secs(30),
        }
    }

    /// Caps the wait between attempts.
    pub fn max_backoff(mut self, max: Duration) -> Self {
        self.max_backoff = max;
        self
    }

    /// The wait before attempt `n + 1` (after `n` failures).
    pub fn backoff(&self, failures: u32) -> Duration {
        let factor = 2u32.saturating_pow(failures.saturating_sub(1));
        self.initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

impl Hook for Retry {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let mut attempt = 1;
        loop {
            if attempt >= self.max_attempts {
                cx.extensions_mut().insert(Attempts(attempt));
                return next.run(cx, args).await;
            }
            let outcome = next.run(cx, args.clone()).await;
            match outcome {
                Err(error) if error.is_retryable() => {
                    let wait = self.backoff(attempt);
                    tracing::debug!(
                        target: "hookwire::audit",
                        hook = "retry",
                        tool = cx.tool(),
                        attempt,
                        error = %error,
                        wait_ms = wait.as_millis() as u64,
                        "retrying"
                    );
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                other => {
                    cx.extensions_mut().insert(Attempts(attempt));
                    return other;
                }
            }
        }
    }

    fn name(&self) -> &'static str {
        "retry"
    }
}
