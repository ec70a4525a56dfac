//! [`Approvals`]: the approver an agent run uses, with its sticky
//! decisions, pending calls and given decisions as serde data.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    Answer, ApprovalDecision, ApprovalRequest, Approver, Asker, BoxFuture, PENDING_REASON,
};

/// A sticky decision about one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sticky {
    /// Every call of the tool is approved without asking.
    AlwaysApprove,
    /// Every call of the tool is denied without asking.
    AlwaysDeny,
}

/// Approval settings: which tools need approval at the agent level (on top
/// of any approval hooks in the chains).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalSettings {
    /// Tools whose every call needs approval.
    #[serde(default)]
    pub needs_approval: BTreeSet<String>,
}

/// A call waiting for a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingApproval {
    /// The agent.
    pub agent: String,
    /// The tool.
    pub tool: String,
    /// The model's id for the call.
    pub tool_use_id: String,
    /// The arguments the tool would receive (`null` if they did not parse).
    pub arguments: Value,
    /// Why approval is needed.
    pub reason: String,
}

/// Everything approval remembers, as plain serde data: settings, sticky
/// decisions, pending requests and decisions given but not yet used.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ApprovalState {
    /// The settings.
    #[serde(default)]
    pub settings: ApprovalSettings,
    /// Sticky decisions by tool name.
    #[serde(default)]
    pub sticky: BTreeMap<String, Sticky>,
    /// Calls waiting for a decision.
    #[serde(default)]
    pub pending: Vec<PendingApproval>,
    /// Decisions given for pending calls, by tool-use id.
    #[serde(default)]
    pub resolved: BTreeMap<String, ApprovalDecision>,
}

/// The approver an agent run uses: sticky decisions first, then decisions
/// given for pending calls, then the [`Asker`]. Cloning shares the state.
///
/// ```
/// # use hookwire::approval::{Answer, Approvals, FnAsker, Sticky};
/// let approvals = Approvals::new(FnAsker::new(|_| Answer::AlwaysApprove));
/// approvals.set_sticky("search", Sticky::AlwaysDeny);
/// assert_eq!(approvals.state().sticky["search"], Sticky::AlwaysDeny);
/// ```
#[derive(Clone)]
pub struct Approvals {
    state: Arc<Mutex<ApprovalState>>,
    asker: Option<Arc<dyn Asker>>,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals")
            .field("state", &*self.lock())
            .field("asker", &self.asker.is_some())
            .finish()
    }
}

impl Default for Approvals {
    fn default() -> Self {
        Self::none()
    }
}

impl Approvals {
    /// Approvals that ask `asker`.
    pub fn new(asker: impl Asker + 'static) -> Self {
        Self::from_arc(Arc::new(asker))
    }

    /// Approvals that ask a shared asker.
    pub fn from_arc(asker: Arc<dyn Asker>) -> Self {
        Self {
            state: Arc::default(),
            asker: Some(asker),
        }
    }

    /// Approvals with nobody to ask: every request that no sticky or given
    /// decision answers is denied (fail closed).
    pub fn none() -> Self {
        Self {
            state: Arc::default(),
            asker: None,
        }
    }

    /// Replaces the state (to restore an exported one).
    pub fn with_state(self, state: ApprovalState) -> Self {
        self.replace_state(state);
        self
    }

    /// Replaces the state in place (every clone sees it).
    pub fn replace_state(&self, state: ApprovalState) {
        *self.lock() = state;
    }

    fn lock(&self) -> MutexGuard<'_, ApprovalState> {
        crate::lock(&self.state)
    }

    /// A copy of the state, to export.
    pub fn state(&self) -> ApprovalState {
        self.lock().clone()
    }

    /// Records a sticky decision for `tool`.
    pub fn set_sticky(&self, tool: impl Into<String>, sticky: Sticky) {
        self.lock().sticky.insert(tool.into(), sticky);
    }

    /// Makes every call of `tool` need approval.
    pub fn require(&self, tool: impl Into<String>) {
        self.lock().settings.needs_approval.insert(tool.into());
    }

    /// Whether `tool` needs approval by the settings.
    pub fn is_required(&self, tool: &str) -> bool {
        self.lock().settings.needs_approval.contains(tool)
    }

    /// Calls waiting for a decision.
    pub fn pending(&self) -> Vec<PendingApproval> {
        self.lock().pending.clone()
    }

    /// Gives the decision for a pending call; it is used when the call is
    /// run again (on resume). Returns whether such a call was pending: a
    /// decision for an id that is not pending is refused and changes
    /// nothing (it must not approve a later call that happens to get that
    /// id).
    pub fn resolve(&self, tool_use_id: &str, decision: ApprovalDecision) -> bool {
        let mut state = self.lock();
        let before = state.pending.len();
        state.pending.retain(|p| p.tool_use_id != tool_use_id);
        if state.pending.len() == before {
            return false;
        }
        state.resolved.insert(tool_use_id.to_owned(), decision);
        true
    }

    /// Drops the calls waiting for a decision and the decisions not yet
    /// used (sticky decisions and settings stay): what a new run does, since
    /// they belong to a run that is over.
    pub fn clear_waiting(&self) {
        let mut state = self.lock();
        state.pending.clear();
        state.resolved.clear();
    }

    /// Whether a call with this id is pending.
    pub fn is_pending(&self, tool_use_id: &str) -> bool {
        self.lock()
            .pending
            .iter()
            .any(|p| p.tool_use_id == tool_use_id)
    }
}

impl Approver for Approvals {
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        Box::pin(async move {
            {
                let mut state = self.lock();
                match state.sticky.get(request.tool) {
                    Some(Sticky::AlwaysApprove) => return ApprovalDecision::Approve,
                    Some(Sticky::AlwaysDeny) => {
                        return ApprovalDecision::Deny(format!(
                            "calls of `{}` are always denied",
                            request.tool
                        ));
                    }
                    None => {}
                }
                if let Some(decision) = state.resolved.remove(request.tool_use_id) {
                    return decision;
                }
            }
            let Some(asker) = &self.asker else {
                return ApprovalDecision::Deny(format!(
                    "approval required ({}) but no approver is configured",
                    request.reason
                ));
            };
            let tool = request.tool.to_owned();
            let pending = PendingApproval {
                agent: request.agent.to_owned(),
                tool: tool.clone(),
                tool_use_id: request.tool_use_id.to_owned(),
                arguments: request.arguments.to_value().unwrap_or(Value::Null),
                reason: request.reason.to_owned(),
            };
            match asker.ask(request).await {
                Answer::Approve => ApprovalDecision::Approve,
                Answer::Deny(reason) => ApprovalDecision::Deny(reason),
                Answer::AlwaysApprove => {
                    self.set_sticky(tool, Sticky::AlwaysApprove);
                    ApprovalDecision::Approve
                }
                Answer::AlwaysDeny => {
                    let reason = format!("calls of `{tool}` are always denied");
                    self.set_sticky(tool, Sticky::AlwaysDeny);
                    ApprovalDecision::Deny(reason)
                }
                Answer::Defer => {
                    let mut state = self.lock();
                    state
                        .pending
                        .retain(|p| p.tool_use_id != pending.tool_use_id);
                    state.pending.push(pending);
                    ApprovalDecision::Deny(PENDING_REASON.to_owned())
                }
            }
        })
    }
}
