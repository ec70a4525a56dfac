//! Time limits that do not count waiting for a person: the one place
//! hookwire limits time.
//!
//! Every time limit runs its future through [`limit`]: the run's
//! (`tool_call_timeout`, a child agent's timeout, an injection's), the
//! [`Timeout`](crate::hooks::Timeout) hook, a guarded hook's `timeout_ms`, a
//! lifecycle hook's timeout and an MCP server's start and call limits. Every approval gate
//! marks the time it waits for a decision with [`waiting`]. While any gate
//! inside a limited future waits, that limit's clock stands still: the
//! limit measures the work before and after the wait, never the wait.
//! Limits nest (a child's timeout inside the parent's call timeout): a wait
//! stops every enclosing clock.
//!
//! The clocks live in a task-local of the limited future, never in a
//! `static`: one run's waits never stop another run's clock.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// One limit's clock: how long it stood still, and whether it does now.
#[derive(Default)]
struct WaitClock {
    state: Mutex<Paused>,
    changed: Notify,
}

#[derive(Default)]
struct Paused {
    /// Gates waiting now.
    waiting: usize,
    /// Since when they wait.
    since: Option<Instant>,
    /// The waits so far.
    total: Duration,
}

impl WaitClock {
    /// When the limit ends, `None` while a gate waits.
    fn deadline(&self, start: Instant, limit: Duration) -> Option<Instant> {
        let paused = crate::lock(&self.state);
        (paused.waiting == 0).then(|| start + limit + paused.total)
    }

    fn enter(&self) {
        let mut paused = crate::lock(&self.state);
        if paused.waiting == 0 {
            paused.since = Some(Instant::now());
        }
        paused.waiting += 1;
        drop(paused);
        self.changed.notify_waiters();
    }

    fn leave(&self) {
        let mut paused = crate::lock(&self.state);
        paused.waiting = paused.waiting.saturating_sub(1);
        if paused.waiting == 0
            && let Some(since) = paused.since.take()
        {
            paused.total += since.elapsed();
        }
        drop(paused);
        self.changed.notify_waiters();
    }
}

tokio::task_local! {
    /// The clocks of the limits around the running future, outermost first.
    static CLOCKS: Arc<[Arc<WaitClock>]>;
}

/// Marks a wait for a person until it is dropped: the clocks of every
/// enclosing [`limit`] stand still meanwhile.
pub fn waiting() -> Waiting {
    let clocks = CLOCKS.try_with(Arc::clone).ok();
    if let Some(clocks) = &clocks {
        clocks.iter().for_each(|c| c.enter());
    }
    Waiting(clocks)
}

/// A wait in progress (see [`waiting`]).
pub struct Waiting(Option<Arc<[Arc<WaitClock>]>>);

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(clocks) = &self.0 {
            clocks.iter().for_each(|c| c.leave());
        }
    }
}

/// The limit ran out.
#[derive(Debug)]
pub struct Elapsed;

/// Runs `fut` for at most `limit`, not counting the time its approval
/// gates wait for a decision.
pub async fn limit<F: Future>(limit: Duration, fut: F) -> Result<F::Output, Elapsed> {
    let clock = Arc::new(WaitClock::default());
    let clocks: Arc<[Arc<WaitClock>]> = match CLOCKS.try_with(Arc::clone) {
        Ok(outer) => outer.iter().cloned().chain([clock.clone()]).collect(),
        Err(_) => Arc::from([clock.clone()]),
    };
    let start = Instant::now();
    let mut fut = pin!(CLOCKS.scope(clocks, fut));
    loop {
        let mut changed = pin!(clock.changed.notified());
        changed.as_mut().enable();
        match clock.deadline(start, limit) {
            None => {
                tokio::select! {
                    biased;
                    out = &mut fut => return Ok(out),
                    () = &mut changed => {}
                }
            }
            Some(deadline) => {
                tokio::select! {
                    biased;
                    out = &mut fut => return Ok(out),
                    () = &mut changed => {}
                    () = tokio::time::sleep_until(deadline) => {
                        if clock.deadline(start, limit).is_some_and(|d| d <= Instant::now()) {
                            return Err(Elapsed);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_wait_stops_the_clock_of_every_enclosing_limit() {
        let work = async {
            tokio::time::sleep(Duration::from_millis(600)).await;
            {
                let _w = waiting();
                tokio::time::sleep(Duration::from_secs(5)).await;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
            7
        };
        // 900 ms of work, 5 s of waiting: within 1 s, inside 2 s.
        let inner = limit(Duration::from_secs(1), work);
        assert_eq!(
            limit(Duration::from_secs(2), inner).await.unwrap().unwrap(),
            7
        );
    }

    #[tokio::test(start_paused = true)]
    async fn work_past_the_limit_still_times_out() {
        let work = async {
            {
                let _w = waiting();
                tokio::time::sleep(Duration::from_secs(5)).await;
            }
            tokio::time::sleep(Duration::from_millis(1100)).await;
        };
        assert!(limit(Duration::from_secs(1), work).await.is_err());
        // Without a wait marked, the wait counts.
        let unmarked = tokio::time::sleep(Duration::from_secs(5));
        assert!(limit(Duration::from_secs(1), unmarked).await.is_err());
    }
}
