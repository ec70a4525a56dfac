//! A run's resumable state: what it holds, how it is checked, exported
//! and imported.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{PausedChild, RunSettings, Runner, StateSeal, TraceEvent};
use crate::agent::decl::Agent;
use crate::agent::lifecycle::LifecycleHooks;
use crate::approval::{ApprovalState, Sticky};
use crate::lock;
use crate::model::{Message, ModelResponse};
use hookwire_chain::call::{ToolCall, ToolResult};

/// A step whose tool calls wait for approval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingStep {
    /// The step.
    pub step: usize,
    /// The model's answer that made the calls.
    pub response: ModelResponse,
    /// The calls, in order.
    pub calls: Vec<ToolCall>,
    /// The results of the calls that already ran (`None` for waiting ones).
    pub results: Vec<Option<ToolResult>>,
}

/// A run's resumable state, as serde data (JSON by `serde_json`), sealed
/// by the runner that exported it.
///
/// What it may carry: the history (prompts, the model's answers, tool
/// results), the approvals (the tools that need approval, sticky "always"
/// decisions, the calls that wait and the decisions given for them), the
/// paused step and the paused child runs, the limits, the child histories
/// and the trace so far. It is not encrypted: whoever holds it reads all of
/// that. It is signed: a runner given a [`StateSeal`](super::StateSeal)
/// seals what it exports with its key (the `seal` field), and a runner
/// refuses to import a state that is unsigned or that someone changed, so
/// a state cannot grant itself an "always approve" or hold a call the
/// model never made.
///
/// What an importer must keep: the same key (without it, no state imports:
/// [`StateError::NoSeal`]), and the record of the decisions already used
/// ([`SpentDecisions`](crate::approval::SpentDecisions), the seal's), shared
/// by every runner that imports the states: a state holding a decision
/// that ran a call is refused ([`StateError::Replayed`]), so a decided
/// state resumes once, in one runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunState {
    /// The format version (1).
    pub version: u32,
    /// The agent.
    pub agent: String,
    /// The correlation id.
    pub correlation_id: String,
    /// The history.
    pub history: Vec<Message>,
    /// Approval settings, sticky decisions, pending and resolved approvals.
    pub approvals: ApprovalState,
    /// The step waiting for approval, if paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_step: Option<PendingStep>,
    /// Model requests made in the current run so far.
    #[serde(default)]
    pub steps: usize,
    /// The limits.
    #[serde(default)]
    pub settings: RunSettings,
    /// The histories kept for child agents (`history_merge_target: child`),
    /// by tool name (`agent__<Name>`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub children: BTreeMap<String, Vec<Message>>,
    /// How often `stop` hooks forced the current run on so far.
    #[serde(default)]
    pub forced_continues: usize,
    /// The trace of the current run so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceEvent>,
    /// The runs of child agents paused for approval in the paused step, by
    /// the call id that runs them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub paused_children: BTreeMap<String, PausedChild>,
    /// Request-start and completion injections made in this session so far
    /// (their call ids count on from it, so they stay unique across
    /// export, import and durable requests).
    #[serde(default)]
    pub injections: u64,
    /// Runs started in this session so far: the number of the current run,
    /// part of each call's [`idempotency_key`](crate::ToolContext::idempotency_key)
    /// (so that a call id a model uses again in a later run gets another key).
    #[serde(default)]
    pub runs: u64,
    /// The session's metadata, which lifecycle hooks read and write
    /// ([`RunMetadata`](crate::agent::RunMetadata)).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, serde_json::Value>,
    /// The state's seal: HMAC-SHA256 (hex) of the rest of it, with the
    /// exporting runner's [`StateKey`](super::StateKey); `None` when the
    /// runner exports states unsigned ([`StateSeal::unsigned`](super::StateSeal::unsigned)).
    /// A state whose seal does not match is refused on import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<String>,
}

/// The format version of [`RunState`] that this hookwire writes and reads.
/// Version 2 identifies approvals by [`CallKey`](crate::approval::CallKey).
pub const STATE_VERSION: u32 = 2;

/// Why [`Runner::import_state`] refused a state. The runner is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The state has another format version.
    #[error("the state has format version {found}; this hookwire reads version {expected}")]
    Version {
        /// The state's version.
        found: u32,
        /// The version this hookwire reads.
        expected: u32,
    },
    /// The state was exported by another agent.
    #[error("the state belongs to agent `{found}`, not to `{expected}`")]
    OtherAgent {
        /// The agent the state names.
        found: String,
        /// This runner's agent.
        expected: String,
    },
    /// The state names a tool the agent does not have.
    #[error("the state's {what} names tool `{tool}`, which agent `{agent}` does not have")]
    UnknownTool {
        /// The agent.
        agent: String,
        /// Where the state names it.
        what: &'static str,
        /// The tool.
        tool: String,
    },
    /// The state names a call id that is not a waiting call of its paused
    /// step.
    #[error(
        "the state's {what} names call id `{id}`, which is not a waiting call of its paused step"
    )]
    UnknownCall {
        /// Where the state names it.
        what: &'static str,
        /// The id.
        id: String,
    },
    /// The paused step contradicts itself or the model's recorded answer.
    #[error("the state's paused step is inconsistent: {0}")]
    Inconsistent(String),
    /// An approval in the state does not match the call it names.
    #[error("the state's {what} for `{path}` does not match its call: {why}")]
    ApprovalMismatch {
        /// Where the state names it.
        what: &'static str,
        /// The call's path (`pmo / ny / pay`).
        path: String,
        /// What differs.
        why: String,
    },
    /// A history in the state is not a conversation a provider accepts: a
    /// model's tool call has no result right after its turn (outside the
    /// paused step), or a tool result answers no call of the turn before
    /// it. Such a state is refused, not repaired: the loop never leaves a
    /// history so (a step joins it with its results or not at all), so the
    /// state was made or edited elsewhere.
    #[error("the state's {what} is not a conversation a model accepts: {why}")]
    History {
        /// Which history (`history`, `history of `agent__x``, ...).
        what: String,
        /// What is wrong, and where.
        why: String,
    },
    /// The state holds a decision that this runner already used to run a
    /// call: importing it again would run that call twice.
    #[error(
        "the state's approval for `{path}` was already used in this session: a state is \
         imported once per pause, and an approved call never runs twice"
    )]
    Replayed {
        /// The call's path.
        path: String,
    },
    /// The runner has no [`StateSeal`](super::StateSeal): it imports no
    /// state.
    #[error(
        "this runner imports no state: give it the key the states are sealed with, \
         `Runner::with_state_seal(StateSeal::new(key))` (or `StateSeal::unsigned()` for \
         states that never leave the process)"
    )]
    NoSeal,
    /// The state has no seal, and the runner takes sealed states only.
    #[error(
        "the state is not sealed: this runner takes only states sealed with its key \
         (exported by a runner with the same `StateSeal`)"
    )]
    Unsealed,
    /// The state's seal does not match: it was changed after it was
    /// exported, or sealed with another key.
    #[error(
        "the state's seal does not match its content: it was changed after it was exported, \
         or sealed with another key; it is refused whole"
    )]
    Altered,
}

/// The stricter of two limits: `a` unless `b` is stricter.
fn stricter(a: RunSettings, b: RunSettings) -> RunSettings {
    RunSettings {
        max_steps: a.max_steps.min(b.max_steps),
        max_parallel: a.max_parallel.min(b.max_parallel).max(1),
        max_forced_continues: a.max_forced_continues.min(b.max_forced_continues),
        tool_call_timeout: match (a.tool_call_timeout, b.tool_call_timeout) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        },
        model_retry: if b.model_retry.max_retries < a.model_retry.max_retries {
            b.model_retry
        } else {
            a.model_retry
        },
        usage_limit: match (a.usage_limit, b.usage_limit) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        },
        output_retries: a.output_retries.min(b.output_retries),
    }
}

impl RunState {
    /// The state as JSON.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }

    /// The state from JSON.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The JSON a seal covers: the state without its seal.
    fn unsealed_json(&self) -> Vec<u8> {
        // Plain data (strings, numbers, maps with string keys): it always
        // serializes.
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(object) = value.as_object_mut() {
            object.shift_remove("seal");
        }
        serde_json::to_vec(&value).unwrap_or_default()
    }
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// The resumable state, sealed with the runner's key when it has one
    /// ([`with_state_seal`](Self::with_state_seal)).
    ///
    /// A state exported after a run that did not end (its stream dropped,
    /// say) is the session as the run left it at the start of its
    /// unfinished step (see [`run`](Self::run)): no call waits, so it
    /// carries no pending approvals, decisions or paused child runs, which
    /// belonged to that step.
    pub fn export_state(&self) -> RunState {
        let paused = self.conv.pending.is_some();
        let mut approvals = self.conv.approvals.state();
        if !paused {
            approvals.pending.clear();
            approvals.resolved.clear();
        }
        let mut state = RunState {
            version: STATE_VERSION,
            agent: self.agent.config().name.to_string(),
            correlation_id: self.scope.correlation_id().to_string(),
            history: self.conv.history.to_vec(),
            approvals,
            pending_step: self.conv.pending.clone(),
            steps: self.conv.steps,
            settings: self.settings,
            children: lock(&self.session.children).clone(),
            forced_continues: self.conv.forced,
            trace: (*self.conv.trace).clone(),
            paused_children: match paused {
                true => lock(&self.session.paused).clone(),
                false => BTreeMap::new(),
            },
            injections: self.conv.injections,
            runs: self.scope.run(),
            metadata: self.session.metadata.to_map(),
            seal: None,
        };
        if let Some(key) = self.state_seal.as_deref().and_then(StateSeal::key) {
            state.seal = Some(key.seal(&state.unsealed_json()));
        }
        state
    }

    /// Restores an exported state: history, child histories, approvals, a
    /// paused step (with its paused child runs), the trace so far.
    ///
    /// The state is checked first, and refused with a [`StateError`]
    /// (leaving the runner as it was) when the runner has no
    /// [`StateSeal`](super::StateSeal) ([`with_state_seal`](Self::with_state_seal)),
    /// when it is not sealed with the runner's key or was changed since
    /// (unless the seal is [`unsigned`](super::StateSeal::unsigned)), when
    /// it is of another format version
    /// or agent, names tools the agent does not have, or its paused step is
    /// not the model's recorded answer (the same calls, ending the
    /// history); when a pending approval or a decision does not name a
    /// waiting call with the arguments it shows, or names one twice; when
    /// it holds a decision this runner, or any runner sharing its seal's
    /// record, already used; or when one of its histories is not a
    /// conversation a provider accepts (a tool call without a result right
    /// after its turn, outside the paused step, or a result of no call:
    /// [`StateError::History`]; refused, not repaired).
    ///
    /// A state never loosens the runner: its limits (`max_steps`,
    /// `max_parallel`, `max_forced_continues`, `tool_call_timeout`) are the
    /// stricter of the runner's and the state's; the tools the runner
    /// requires approval for stay required (the state's are added); the
    /// runner's "always deny" decisions stay; and a runner whose approvals
    /// ask no [`Approver`](crate::approval::Approver) takes no "always
    /// approve" decision from a state. [`adopt_state`](Self::adopt_state) takes the state's
    /// limits and approval settings as they are.
    pub fn import_state(&mut self, state: RunState) -> Result<(), StateError> {
        self.restore(state, false)
    }

    /// [`import_state`](Self::import_state), taking the state's limits and
    /// approval settings (requirements, sticky decisions) as they are,
    /// even where they are looser than the runner's: only for a state you
    /// trust as much as your own code. Its seal is checked as for
    /// `import_state`.
    pub fn adopt_state(&mut self, state: RunState) -> Result<(), StateError> {
        self.restore(state, true)
    }

    fn restore(&mut self, state: RunState, adopt: bool) -> Result<(), StateError> {
        let Some(seal) = &self.state_seal else {
            return Err(StateError::NoSeal);
        };
        if let Some(key) = seal.key() {
            let Some(given) = &state.seal else {
                return Err(StateError::Unsealed);
            };
            if !key.verify(&state.unsealed_json(), given) {
                return Err(StateError::Altered);
            }
        }
        self.restore_checked(state, adopt)
    }

    /// Restores a state a durable session kept in its own store (never
    /// outside Restate: its `state` handler is private), with every check
    /// but the seal's.
    #[cfg(feature = "durable")]
    pub(crate) fn restore_stored(&mut self, state: RunState) -> Result<(), StateError> {
        self.restore_checked(state, false)
    }

    fn restore_checked(&mut self, mut state: RunState, adopt: bool) -> Result<(), StateError> {
        state.check(&self.agent)?;
        state.check_approvals(&self.conv.approvals)?;
        let mut approvals = std::mem::take(&mut state.approvals);
        let mut settings = state.settings;
        if !adopt {
            let own = self.conv.approvals.state();
            settings = stricter(self.settings, settings);
            approvals
                .settings
                .needs_approval
                .extend(own.settings.needs_approval);
            if !self.conv.approvals.has_approver() {
                approvals.sticky.retain(|_, s| *s != Sticky::AlwaysApprove);
                approvals.conditions.clear();
            }
            for (tool, conditions) in own.conditions {
                approvals.conditions.entry(tool).or_insert(conditions);
            }
            for (tool, sticky) in own.sticky {
                if sticky == Sticky::AlwaysDeny || !approvals.sticky.contains_key(&tool) {
                    approvals.sticky.insert(tool, sticky);
                }
            }
        }
        self.conv.approvals.replace_state(approvals);
        self.scope
            .set_approver(Some(Arc::new(self.conv.approvals.clone())));
        self.scope
            .set_correlation_id(std::mem::take(&mut state.correlation_id));
        self.scope.set_run(state.runs);
        self.settings = settings;
        self.take_run(state);
        Ok(())
    }

    /// Takes the run of a checked state: history, child histories and
    /// paused child runs, the paused step, the counters, the trace.
    fn take_run(&mut self, mut state: RunState) {
        self.conv.take_run(&mut state);
        self.session
            .metadata
            .replace(std::mem::take(&mut state.metadata));
        *lock(&self.session.children) = state.children;
        *lock(&self.session.paused) = state.paused_children;
    }

    /// A paused child run's state, for its parent to keep: everything but
    /// the approvals, which are the parent's.
    pub(crate) fn export_child(&self) -> RunState {
        let mut state = self.export_state();
        state.approvals = ApprovalState::default();
        // The parent's state is sealed whole, this one with it.
        state.seal = None;
        state
    }

    /// Restores a paused child run kept by its parent (checked against the
    /// child agent), keeping the runner's approvals (the parent's), limits
    /// and correlation id.
    pub(crate) fn restore_child(&mut self, state: RunState) -> Result<(), StateError> {
        state.check(&self.agent)?;
        self.take_run(state);
        Ok(())
    }

    /// [`import_state`](Self::import_state) for a builder chain.
    pub fn with_state(mut self, state: RunState) -> Result<Self, StateError> {
        self.import_state(state)?;
        Ok(self)
    }
}
