//! A run's resumable state: what it holds, how it is checked, exported
//! and imported.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{RunSettings, Runner, TraceEvent};
use crate::agent::decl::Agent;
use crate::agent::lifecycle::LifecycleHooks;
use crate::approval::ApprovalState;
use crate::call::{ToolCall, ToolResult};
use crate::lock;
use crate::model::{Message, ModelResponse};
use crate::toolset::ToolSet;

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

/// A run's resumable state, as plain serde data (JSON by `serde_json`).
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
}

/// The format version of [`RunState`] that this hookwire writes and reads.
pub const STATE_VERSION: u32 = 1;

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
    /// The paused step contradicts itself.
    #[error("the state's paused step is inconsistent: {0}")]
    Inconsistent(String),
}

impl RunState {
    /// Checks the state against `agent`: its version, its agent, and that
    /// every tool and call id it names exists.
    fn check<A: Agent>(&self, agent: &A) -> Result<(), StateError> {
        if self.version != STATE_VERSION {
            return Err(StateError::Version {
                found: self.version,
                expected: STATE_VERSION,
            });
        }
        let name = &agent.config().name;
        if self.agent != *name {
            return Err(StateError::OtherAgent {
                found: self.agent.clone(),
                expected: name.to_string(),
            });
        }
        let tools = agent.tools();
        let unknown = |what, tool: &str| StateError::UnknownTool {
            agent: name.to_string(),
            what,
            tool: tool.to_owned(),
        };
        for tool in self.children.keys() {
            if !tools.contains(tool) {
                return Err(unknown("child histories", tool));
            }
        }
        let mut waiting = std::collections::HashSet::new();
        if let Some(step) = &self.pending_step {
            if step.results.len() != step.calls.len() {
                return Err(StateError::Inconsistent(format!(
                    "{} call(s) but {} result slot(s)",
                    step.calls.len(),
                    step.results.len()
                )));
            }
            let mut ids = std::collections::HashSet::new();
            for (call, result) in step.calls.iter().zip(&step.results) {
                if !tools.contains(&call.name) {
                    return Err(unknown("paused step", &call.name));
                }
                if call.id.is_empty() || !ids.insert(call.id.as_str()) {
                    return Err(StateError::Inconsistent(format!(
                        "call id `{}` is empty or used twice",
                        call.id
                    )));
                }
                if result.is_none() {
                    waiting.insert(call.id.as_str());
                }
            }
        }
        for p in &self.approvals.pending {
            if !waiting.contains(p.tool_use_id.as_str()) {
                return Err(StateError::UnknownCall {
                    what: "pending approvals",
                    id: p.tool_use_id.clone(),
                });
            }
        }
        for id in self.approvals.resolved.keys() {
            if !waiting.contains(id.as_str()) {
                return Err(StateError::UnknownCall {
                    what: "approval decisions",
                    id: id.clone(),
                });
            }
        }
        Ok(())
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
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// The resumable state.
    pub fn export_state(&self) -> RunState {
        RunState {
            version: STATE_VERSION,
            agent: self.agent.config().name.to_string(),
            correlation_id: self.scope.correlation_id().to_string(),
            history: self.history.to_vec(),
            approvals: self.approvals.state(),
            pending_step: self.pending.clone(),
            steps: self.steps,
            settings: self.settings,
            children: lock(&self.children).clone(),
            forced_continues: self.forced,
            trace: self.trace.clone(),
        }
    }

    /// Restores an exported state: history, child histories, approvals, a
    /// paused step, the trace so far.
    ///
    /// A state of another format version or another agent, or one that
    /// names tools the agent does not have or call ids that are not waiting
    /// calls of its paused step, is refused with a [`StateError`], and the
    /// runner is left as it was.
    pub fn import_state(&mut self, state: RunState) -> Result<(), StateError> {
        state.check(&self.agent)?;
        self.history = Arc::new(state.history);
        *lock(&self.children) = state.children;
        self.approvals.replace_state(state.approvals);
        self.scope
            .set_approver(Some(Arc::new(self.approvals.clone())));
        self.scope.set_correlation_id(state.correlation_id);
        self.pending = state.pending_step;
        self.steps = state.steps;
        self.forced = state.forced_continues;
        self.settings = state.settings;
        self.trace = state.trace;
        Ok(())
    }

    /// [`import_state`](Self::import_state) for a builder chain.
    pub fn with_state(mut self, state: RunState) -> Result<Self, StateError> {
        self.import_state(state)?;
        Ok(self)
    }
}
