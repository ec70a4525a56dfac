//! Why a run failed.

use crate::agent::journal::JournalError;
use crate::model::ModelError;

/// Why a run failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The step limit was reached without a final answer.
    #[error("no final answer after {0} step(s)")]
    StepLimit(usize),
    /// The run's usage limit ([`RunSettings::usage_limit`](super::RunSettings::usage_limit))
    /// was reached: the run ended before its next model call.
    #[error(
        "the usage limit of {limit} tokens is reached ({used} used): the run ended before its next model call"
    )]
    UsageLimit {
        /// The limit.
        limit: u64,
        /// The tokens used (by the run and the child agents it called).
        used: u64,
    },
    /// `resume` was called with nothing to resume.
    #[error("nothing to resume: the run is not paused")]
    NotPaused,
    /// `run` was called while the run is paused for approval; resolve the
    /// pending calls and `resume` first.
    #[error("the run is paused for approval: resolve the pending calls and resume it first")]
    Paused,
    /// A paused run still has calls waiting for a decision.
    #[error("{0} call(s) still wait for an approval decision")]
    StillPending(usize),
    /// The model's answer did not match the run's output schema, after
    /// [`output_retries`](super::RunSettings::output_retries) tries more.
    #[error(
        "the model's answer does not match the output schema `{name}` after {retries} retr{}: {error}",
        if *retries == 1 { "y" } else { "ies" }
    )]
    OutputInvalid {
        /// The schema's name.
        name: String,
        /// How often it was asked again.
        retries: usize,
        /// What was wrong with the last answer.
        error: String,
    },
    /// A typed run ([`Runner::run_typed`](super::Runner::run_typed)) ended
    /// without a final answer (paused for approval or stopped by a hook):
    /// its output.
    #[error("the run ended {} without a final answer, so there is no typed output", .0.status.as_str())]
    Unfinished(Box<super::RunOutput>),
    /// A name the run was given selects nothing, or a request hook is
    /// invalid: the run was refused before anything ran.
    /// (Boxed: a run's error travels through every step's result.)
    #[error(transparent)]
    Setup(Box<super::SetupError>),
    /// Tools the agent's sources refused (an MCP tool that differs from
    /// its lock, whose `on_change` is `stop`): the run stopped before its
    /// next model request. Each names the tool and what differs.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    ToolsRefused(Vec<crate::agent::RefusedTool>),
    /// A journaled step could not be recorded or replayed.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

impl From<super::SetupError> for RunError {
    fn from(error: super::SetupError) -> Self {
        Self::Setup(Box::new(error))
    }
}
