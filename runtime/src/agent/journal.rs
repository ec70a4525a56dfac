//! The seam a durable engine records a run through: each model response
//! and each tool call (with its hooks and its approval bookkeeping) is one
//! step whose value the engine journals, and replays instead of running the
//! step again after a crash or a restart.
//!
//! [`Runner::run_journaled`](super::Runner::run_journaled) and
//! [`Runner::resume_journaled`](super::Runner::resume_journaled) take a
//! [`Journal`]; [`Runner::run`](super::Runner::run) takes none and runs
//! every step directly. The Restate-backed journal is in `hookwire::durable`
//! (feature `durable`).

use serde_json::Value;

use crate::BoxFuture;

/// Why a journaled step failed: the engine could not record it, or the
/// value it replayed is not one this hookwire reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("journal step `{step}` failed: {message}")]
#[non_exhaustive]
pub struct JournalError {
    /// The step's name (`model 0`, `tool add t1`, ...).
    pub step: String,
    /// What went wrong.
    pub message: String,
}

impl JournalError {
    /// An error of step `step`.
    pub fn new(step: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            step: step.into(),
            message: message.into(),
        }
    }
}

/// Records a run's steps so that a durable engine can replay them.
///
/// The loop calls [`step`](Journal::step) for each model request, each tool
/// call (its lifecycle hooks, approval settings, chain hooks and tool) and
/// each config-driven injection, in the same order on every replay. The
/// value is plain JSON. The tool calls of one step go through
/// [`steps`](Journal::steps), up to `max_parallel` at a time.
pub trait Journal: Send + Sync {
    /// Runs `effect` and records its value under `name`; or, when this step
    /// was recorded before (a replay), returns the recorded value without
    /// running `effect`.
    fn step<'a>(
        &'a self,
        name: &'a str,
        effect: BoxFuture<'a, Value>,
    ) -> BoxFuture<'a, Result<Value, JournalError>>;

    /// Runs `steps` concurrently, each recorded on its own under its
    /// name, and returns their values in the order given. The steps enter
    /// the journal in the order given whatever their timing (an engine
    /// that replays by position needs that); a replayed step's effect does
    /// not run. The default runs them one after another with
    /// [`step`](Journal::step).
    ///
    /// Unlike [`step`](Journal::step), a value may be returned once it is
    /// sent to the engine, before the engine has acknowledged it: the loop
    /// calls `steps` for a step's tool calls, whose results nothing
    /// outside the run reads before the next recorded step, and whose
    /// effects depend only on the model answer acknowledged before them.
    /// An engine that does so must keep its entries in order, so that
    /// the acknowledgement of a later step (the next model answer, or
    /// the end of the run) covers these too; a crash before it runs them
    /// again, as any step interrupted before it was recorded.
    fn steps<'a>(
        &'a self,
        steps: Vec<(String, BoxFuture<'a, Value>)>,
    ) -> BoxFuture<'a, Vec<Result<Value, JournalError>>> {
        Box::pin(async move {
            let mut values = Vec::with_capacity(steps.len());
            for (name, effect) in steps {
                values.push(self.step(&name, effect).await);
            }
            values
        })
    }

    /// The largest tool result (serialized, in bytes) this journal keeps:
    /// a call whose tool returns more ends with an error result saying
    /// so, which is what is recorded and what the model reads. `None` (the
    /// default): no limit.
    fn max_result_bytes(&self) -> Option<usize> {
        None
    }
}
