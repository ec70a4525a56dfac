//! A conversation's state: what a session keeps from run to run and from
//! step to step (the history, the approvals, the paused step, the trace,
//! the tokens, the counters, the typed output). It is what
//! [`export_state`](super::Runner::export_state) writes,
//! [`import_state`](super::Runner::import_state) restores and a journaled
//! replay rebuilds; the loop's steps read and change it, and nothing else
//! of the runner holds conversation data.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{PendingStep, RunState, TraceEvent, output};
use crate::approval::Approvals;
use crate::model::{Message, Usage};

/// The events a run's trace has room for when it starts.
const TRACE_ROOM: usize = 8;

/// A conversation's state (see the module).
pub(super) struct Conversation {
    /// The approvals: settings, sticky decisions, pending and decided
    /// calls.
    pub(super) approvals: Approvals,
    /// The history the model reads.
    pub(super) history: Arc<Vec<Message>>,
    /// How often `stop` hooks forced the current run on.
    pub(super) forced: usize,
    /// The step waiting for approval, when the run is paused.
    pub(super) pending: Option<PendingStep>,
    /// Model requests made in the current run.
    pub(super) steps: usize,
    /// The current run's own tokens.
    pub(super) usage: Usage,
    /// The tokens of the child agents this run called, by agent path.
    pub(super) child_usage: BTreeMap<String, Usage>,
    /// The current run's trace.
    pub(super) trace: Arc<Vec<TraceEvent>>,
    /// Request-start and completion injections made in the session.
    pub(super) injections: u64,
    /// The output schema of the run, when it is typed.
    pub(super) typed: output::Typed,
}

impl Conversation {
    /// An empty conversation with these approvals.
    #[inline]
    pub(super) fn new(approvals: Approvals) -> Self {
        Self {
            approvals,
            history: Arc::default(),
            forced: 0,
            pending: None,
            steps: 0,
            usage: Usage::default(),
            child_usage: BTreeMap::new(),
            trace: Arc::default(),
            injections: 0,
            typed: output::Typed::default(),
        }
    }

    /// Starts a run: an empty trace, no tokens, no steps; the history is
    /// kept when `use_history`.
    #[inline]
    pub(super) fn begin_run(&mut self, use_history: bool) {
        // Room for a run of a step or two (eight events), kept under the
        // size a small-block allocator serves from its per-thread cache
        // (about 1 KiB): a larger first block made every session dearer
        // (see BENCHMARKS.md). The session's empty trace, or the last
        // run's if nobody holds it any more, is reused.
        match Arc::get_mut(&mut self.trace) {
            Some(trace) => {
                trace.clear();
                trace.reserve(TRACE_ROOM);
            }
            None => self.trace = Arc::new(Vec::with_capacity(TRACE_ROOM)),
        }
        self.usage = Usage::default();
        self.child_usage.clear();
        self.steps = 0;
        self.forced = 0;
        if !use_history {
            Arc::make_mut(&mut self.history).clear();
        }
    }

    /// Adds the tokens of the child agents a step ran, by agent path.
    #[inline]
    pub(super) fn add_child_usage(&mut self, usage: BTreeMap<String, Usage>) {
        // Most steps run no child agent: an empty map is not walked (its
        // `IntoIter` costs about 100 instructions even then).
        if !usage.is_empty() {
            for (path, used) in usage {
                *self.child_usage.entry(path).or_default() += used;
            }
        }
    }

    /// The run's tokens with its children's.
    #[inline]
    pub(super) fn total_usage(&self) -> Usage {
        let mut usage = self.usage;
        for used in self.child_usage.values() {
            usage += *used;
        }
        usage
    }

    /// Takes the run of a checked state (the history, the paused step, the
    /// counters, the trace); the approvals and the session's child maps
    /// are the runner's to restore.
    #[inline]
    pub(super) fn take_run(&mut self, state: &mut RunState) {
        self.history = Arc::new(std::mem::take(&mut state.history));
        self.pending = state.pending_step.take();
        self.steps = state.steps;
        self.forced = state.forced_continues;
        self.trace = Arc::new(std::mem::take(&mut state.trace));
        self.injections = state.injections;
    }
}
