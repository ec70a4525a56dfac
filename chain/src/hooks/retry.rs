//! Retrying: the one schedule ([`RetryPolicy`]) that says when a failed
//! attempt is tried again and how long to wait first. The [`Retry`] hook
//! reads it for tool calls; the agent loop reads it for model calls
//! (`Runner::with_model_retry`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::hook::{Handler, Hook, Next};

/// When and how often a failed attempt is tried again.
///
/// At most `max_retries` retries follow the first attempt, each only after
/// a retryable error (what is retryable is the caller's: a tool's
/// [`ToolError::is_retryable`](crate::ToolError::is_retryable), a model's
/// transport errors, 408, 409, 429 and 5xx). Before retry `n` (from 0) the
/// caller waits what the failing service asked for (a model's
/// `Retry-After`), else `initial_delay * 2^n`, with jitter (a random point
/// in its upper half) when it is on; either way at most `max_delay`.
///
/// The defaults: 3 retries, 500 ms first delay, 30 s cap, jitter on.
/// [`RetryPolicy::none`] turns retrying off.
///
/// ```
/// # use std::time::Duration;
/// # use hookwire::hooks::RetryPolicy;
/// let policy = RetryPolicy::default()
///     .with_max_retries(2)
///     .with_delays(Duration::from_millis(100), Duration::from_secs(1))
///     .with_jitter(false);
/// assert_eq!(policy.delay(0, None), Duration::from_millis(100));
/// assert_eq!(policy.delay(1, None), Duration::from_millis(200));
/// // What the service asked for wins, up to the cap.
/// assert_eq!(policy.delay(0, Some(Duration::from_secs(5))), Duration::from_secs(1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Retries after the first attempt at most.
    pub max_retries: u32,
    /// The delay before the first retry, doubled for each next one.
    pub initial_delay: Duration,
    /// The longest wait before one retry (also caps an asked-for wait).
    pub max_delay: Duration,
    /// Whether the backoff delay is jittered (never an asked-for wait).
    pub jitter: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            jitter: true,
        }
    }
}

impl RetryPolicy {
    /// No retries: the first error fails the call.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// Sets the number of retries.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// Sets the first delay and the cap.
    #[must_use]
    pub fn with_delays(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_delay = initial;
        self.max_delay = max;
        self
    }

    /// Turns jitter on or off.
    #[must_use]
    pub fn with_jitter(mut self, jitter: bool) -> Self {
        self.jitter = jitter;
        self
    }

    /// The wait before retry `retry` (from 0): `asked` (what the failing
    /// service asked for) when it gave one, else the backoff; either way
    /// at most [`max_delay`](Self::max_delay).
    pub fn delay(&self, retry: u32, asked: Option<Duration>) -> Duration {
        if let Some(asked) = asked {
            return asked.min(self.max_delay);
        }
        let factor = 2u32.saturating_pow(retry.min(31));
        let base = self
            .initial_delay
            .saturating_mul(factor)
            .min(self.max_delay);
        if self.jitter {
            // A random point in [base/2, base].
            let half = base / 2;
            half + half.mul_f64(random_unit())
        } else {
            base
        }
    }

    /// The wait before retry `retry` (from 0) after an error, or `None`
    /// when there is no retry: the error is not `retryable`, or the
    /// retries are used up.
    pub fn next(&self, retry: u32, retryable: bool, asked: Option<Duration>) -> Option<Duration> {
        (retryable && retry < self.max_retries).then(|| self.delay(retry, asked))
    }
}

/// A random number in [0, 1), from the standard library's per-instance
/// random hash keys (no random-number crate for this one use).
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u8(0);
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// Runs the rest of the chain again when it fails with a retryable error
/// ([`ToolError::is_retryable`](crate::ToolError::is_retryable): timeouts
/// and tool failures marked retryable), as its [`RetryPolicy`] says.
/// Other errors and successes return at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    policy: RetryPolicy,
}

/// How many attempts the innermost [`Retry`] made, left in the context's
/// extensions for outer hooks to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempts(pub u32);

impl Retry {
    /// Up to `max_attempts` attempts (at least one), waiting
    /// `initial_backoff` before the second, then twice as long each time
    /// (capped at 30 s, see [`max_backoff`](Self::max_backoff)), without
    /// jitter. [`Retry::with_policy`] takes any [`RetryPolicy`].
    pub fn new(max_attempts: u32, initial_backoff: Duration) -> Self {
        Self::with_policy(
            RetryPolicy::default()
                .with_max_retries(max_attempts.saturating_sub(1))
                .with_delays(initial_backoff, Duration::from_secs(30))
                .with_jitter(false),
        )
    }

    /// Retries as `policy` says.
    pub const fn with_policy(policy: RetryPolicy) -> Self {
        Self { policy }
    }

    /// Caps the wait between attempts.
    #[must_use]
    pub fn max_backoff(mut self, max: Duration) -> Self {
        self.policy.max_delay = max;
        self
    }

    /// The policy.
    pub const fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// The wait before attempt `n + 1` (after `n` failures).
    pub fn backoff(&self, failures: u32) -> Duration {
        self.policy.delay(failures.saturating_sub(1), None)
    }
}

impl Hook for Retry {
    /// It passes the arguments on as it received them.
    const REWRITES: bool = false;

    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let mut attempt = 1;
        loop {
            if attempt > self.policy.max_retries {
                cx.extensions_mut().insert(Attempts(attempt));
                return next.run(cx, args).await;
            }
            let outcome = next.run(cx, args.clone()).await;
            if let Err(error) = &outcome
                && let Some(wait) = self.policy.next(attempt - 1, error.is_retryable(), None)
            {
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
                continue;
            }
            cx.extensions_mut().insert(Attempts(attempt));
            return outcome;
        }
    }

    fn name(&self) -> &'static str {
        "retry"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_and_jitter_stays_in_the_upper_half() {
        let p = RetryPolicy::default()
            .with_delays(Duration::from_millis(100), Duration::from_millis(350))
            .with_jitter(false);
        let delays: Vec<u128> = (0..4).map(|n| p.delay(n, None).as_millis()).collect();
        assert_eq!(delays, [100, 200, 350, 350]);
        let p = p.with_jitter(true);
        for n in 0..4 {
            let d = p.delay(n, None).as_millis();
            let base = [100, 200, 350, 350][n as usize];
            assert!(d >= base / 2 && d <= base, "retry {n}: {d} ms");
        }
    }

    #[test]
    fn an_asked_for_wait_is_honoured_and_capped() {
        let p =
            RetryPolicy::default().with_delays(Duration::from_millis(100), Duration::from_secs(2));
        let ms = Duration::from_millis;
        assert_eq!(p.delay(0, Some(ms(0))), Duration::ZERO);
        assert_eq!(p.delay(2, Some(ms(1500))), ms(1500));
        assert_eq!(p.delay(0, Some(ms(60_000))), Duration::from_secs(2));
    }

    #[test]
    fn next_retries_only_retryable_errors_while_retries_are_left() {
        let p = RetryPolicy::default()
            .with_max_retries(2)
            .with_delays(Duration::from_millis(10), Duration::from_secs(1))
            .with_jitter(false);
        assert_eq!(p.next(0, true, None), Some(Duration::from_millis(10)));
        assert_eq!(p.next(1, true, None), Some(Duration::from_millis(20)));
        assert_eq!(p.next(2, true, None), None);
        assert_eq!(p.next(0, false, None), None);
        assert_eq!(RetryPolicy::none().next(0, true, None), None);
    }

    #[test]
    fn the_hook_waits_as_its_policy_says() {
        let retry =
            Retry::new(5, Duration::from_millis(100)).max_backoff(Duration::from_millis(300));
        assert_eq!(retry.policy().max_retries, 4);
        assert_eq!(retry.backoff(1), Duration::from_millis(100));
        assert_eq!(retry.backoff(2), Duration::from_millis(200));
        assert_eq!(retry.backoff(3), Duration::from_millis(300));
    }
}
