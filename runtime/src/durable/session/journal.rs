//! A session's [`Journal`] on Restate: each step of a run is a `ctx.run`,
//! concurrent steps enter the journal in order; and how large a value the
//! journal takes.

use std::sync::Arc;

use restate_sdk::prelude::*;
use serde_json::Value;

use crate::BoxFuture;
use crate::agent::{Journal, JournalError};

/// A [`Journal`] on a Restate handler's context: each step is a `ctx.run`.
pub(super) struct RestateJournal<'c, 'ctx>(pub(super) &'c ObjectContext<'ctx>);

impl Journal for RestateJournal<'_, '_> {
    fn step<'a>(
        &'a self,
        name: &'a str,
        effect: BoxFuture<'a, Value>,
    ) -> BoxFuture<'a, Result<Value, JournalError>> {
        // The context lives as long as the handler, longer than the step.
        let ctx: &'a ObjectContext<'a> = self.0;
        Box::pin(async move {
            ctx.run(|| async move { Ok(Json(effect.await)) })
                .name(name)
                .await
                .map(Json::into_inner)
                .map_err(|e| JournalError::new(name, e.to_string()))
        })
    }

    /// The steps enter the journal (`ctx.run`) in the order given; their
    /// effects run concurrently; each result is sent to the server as its
    /// effect finishes, and its value returned without waiting for the
    /// server's acknowledgement (see [`Journal::steps`]): Restate keeps an
    /// invocation's journal in order, so the acknowledgement of the next
    /// model answer covers them, and a crash before it runs them again.
    /// (restate-sdk 0.13 waits for a `ctx.run`'s acknowledgement by reading
    /// the invocation's input stream, which keeps one waker: a run is
    /// never polled again once another has read that stream; see
    /// [`concurrent_steps`].)
    fn steps<'a>(
        &'a self,
        steps: Vec<(String, BoxFuture<'a, Value>)>,
    ) -> BoxFuture<'a, Vec<Result<Value, JournalError>>> {
        let ctx: &'a ObjectContext<'a> = self.0;
        Box::pin(concurrent_steps(ctx, steps))
    }

    fn max_result_bytes(&self) -> Option<usize> {
        Some(MAX_RESULT_BYTES)
    }
}

/// A journaled step's value, or why it failed.
type Recorded = Result<Value, JournalError>;

/// [`RestateJournal::steps`]: every step enters the journal in order (a
/// `ctx.run` does on its first poll); a replayed one answers from the
/// journal and its effect never runs; the others' effects run
/// concurrently. When an effect finishes, its value goes to its run's
/// closure and the run is polled once more: the closure finishes in that
/// poll, and restate-sdk 0.13 proposes a `ctx.run`'s result to the server
/// in the poll that sees its closure finish. The step's value is then the
/// result as the journal holds it (serialized and read back, as a replay
/// reads it). The run is left waiting for its acknowledgement and
/// dropped: polling it again after another run has read the input stream
/// could wait for an acknowledgement that stream already delivered.
async fn concurrent_steps<'a>(
    ctx: &'a ObjectContext<'a>,
    steps: Vec<(String, BoxFuture<'a, Value>)>,
) -> Vec<Recorded> {
    use futures_util::stream::{FuturesUnordered, StreamExt};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::task::Poll;

    /// A run's closure: its value once the effect has it (filled before
    /// the run is polled again, so no waker is needed), and whether the
    /// closure has returned it.
    #[derive(Default)]
    struct Slot {
        value: Mutex<Option<Value>>,
        started: AtomicBool,
        done: AtomicBool,
    }

    let recorded = |name: &str, r: Result<Json<Value>, TerminalError>| {
        r.map(Json::into_inner)
            .map_err(|e| JournalError::new(name, e.to_string()))
    };
    let mut values: Vec<Option<Recorded>> = steps.iter().map(|_| None).collect();
    let mut runs = Vec::with_capacity(steps.len());
    let mut effects = FuturesUnordered::new();
    for (i, (name, effect)) in steps.into_iter().enumerate() {
        let slot = Arc::new(Slot::default());
        let closure = slot.clone();
        let mut run = Box::pin(
            ctx.run(move || {
                closure.started.store(true, Ordering::SeqCst);
                std::future::poll_fn(move |_| match crate::lock(&closure.value).take() {
                    Some(value) => {
                        closure.done.store(true, Ordering::SeqCst);
                        Poll::Ready(Ok(Json(value)))
                    }
                    None => Poll::Pending,
                })
            })
            .name(name.clone()),
        );
        let first = std::future::poll_fn(|cx| Poll::Ready(run.as_mut().poll(cx))).await;
        match first {
            Poll::Ready(r) => values[i] = Some(recorded(&name, r)),
            Poll::Pending if slot.started.load(Ordering::SeqCst) => {
                effects.push(async move { (i, effect.await) });
            }
            // Recorded but not yet answered (not seen with restate-server
            // 1.7.12): awaited now, before any other run reads the input.
            Poll::Pending => values[i] = Some(recorded(&name, run.as_mut().await)),
        }
        runs.push((name, run, slot));
    }
    while let Some((i, value)) = effects.next().await {
        let (name, run, slot) = &mut runs[i];
        // What a replay reads: the value as serialized in the journal.
        let journaled = serde_json::to_vec(&value)
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes))
            .map_err(|e| JournalError::new(name.as_str(), e.to_string()));
        *crate::lock(&slot.value) = Some(value);
        let proposed = std::future::poll_fn(|cx| Poll::Ready(run.as_mut().poll(cx))).await;
        values[i] = Some(match proposed {
            Poll::Ready(r) => recorded(name, r),
            Poll::Pending if slot.done.load(Ordering::SeqCst) => journaled,
            // The closure did not finish (it always does): wait for the
            // acknowledgement instead.
            Poll::Pending => recorded(name, run.as_mut().await),
        });
    }
    values
        .into_iter()
        .map(|v| v.unwrap_or_else(|| Err(JournalError::new("", "a step was never recorded"))))
        .collect()
}

/// The largest tool result a session keeps, serialized, in bytes (1 MiB):
/// the call's journal entry and the session's state hold it, and Restate
/// refuses a message over its limit (32 MiB by default) on every retry. A
/// call whose tool returns more ends with an error result saying so, which
/// the model reads; the run goes on.
pub const MAX_RESULT_BYTES: usize = 1 << 20;
