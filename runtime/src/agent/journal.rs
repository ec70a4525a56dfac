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

use crate::approval::BoxFuture;

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
/// each config-driven injection, one after another and in the same order on
/// every replay. The value is plain JSON. Tool calls of one step run one at
/// a time under a journal, so that the order of the steps is fixed.
pub trait Journal: Send + Sync {
    /// Runs `effect` and records its value under `name`; or, when this step
    /// was recorded before (a replay), returns the recorded value without
    /// running `effect`.
    fn step<'a>(
        &'a self,
        name: &'a str,
        effect: BoxFuture<'a, Value>,
    ) -> BoxFuture<'a, Result<Value, JournalError>>;

    /// The largest tool result (serialized, in bytes) this journal keeps:
    /// a call whose tool returns more ends with an error result saying
    /// so, which is what is recorded and what the model reads. `None` (the
    /// default): no limit.
    fn max_result_bytes(&self) -> Option<usize> {
        None
    }
}
