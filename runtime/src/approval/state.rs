//! The approvals of a session as serde data: settings, sticky decisions,
//! pending calls and given decisions ([`ApprovalState`]), and why a
//! decision was refused ([`ResolveError`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ApprovalDecision, CallKey};

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
    /// Tools whose every call needs approval, by scoped name (see
    /// [`Approvals::require`](super::Approvals::require)): `pay` for the root agent's tool, `ny/pay`
    /// for its child `ny`'s.
    #[serde(default)]
    pub needs_approval: BTreeSet<String>,
}

/// A call waiting for a decision, as the person is shown it.
///
/// It serializes with two more fields for a person's screen: `id` (the
/// decision id, [`PendingApproval::id`]) and `path` (`pmo / ny / pay`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "ShownApproval")]
#[non_exhaustive]
pub struct PendingApproval {
    /// The call's identity.
    pub key: CallKey,
    /// The arguments the tool would receive, as the approver saw them
    /// (`null` if they did not parse).
    pub arguments: Value,
    /// Why approval is needed.
    pub reason: String,
    /// What the tool gives the approver besides the arguments
    /// ([`ApprovalRequest::metadata`](super::ApprovalRequest::metadata)), as it was when the call was
    /// deferred.
    #[serde(default)]
    pub metadata: Option<Value>,
    /// What the approver was told besides the reason: a remembered
    /// condition of the tool that lapsed ([`LapsedCondition`](super::LapsedCondition)).
    #[serde(default)]
    pub note: Option<String>,
}

/// [`PendingApproval`] as it is written: with its id and path.
#[derive(Serialize)]
struct ShownApproval {
    id: String,
    path: String,
    key: CallKey,
    arguments: Value,
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

impl From<PendingApproval> for ShownApproval {
    fn from(p: PendingApproval) -> Self {
        Self {
            id: p.key.id(),
            path: p.key.path_display(),
            key: p.key,
            arguments: p.arguments,
            reason: p.reason,
            metadata: p.metadata,
            note: p.note,
        }
    }
}

impl ResolvedApproval {
    /// A decision for `call`.
    pub fn new(call: PendingApproval, decision: ApprovalDecision) -> Self {
        Self {
            call,
            decision,
            who: None,
        }
    }
}

impl PendingApproval {
    /// The decision id: what [`Approvals::resolve`](super::Approvals::resolve) takes. It names the
    /// call's whole identity ([`CallKey::id`]).
    pub fn id(&self) -> String {
        self.key.id()
    }

    /// The agent making the call.
    pub fn agent(&self) -> &str {
        &self.key.agent
    }

    /// The tool.
    pub fn tool(&self) -> &str {
        &self.key.tool
    }

    /// The model's id for the call (unique within its step).
    pub fn tool_use_id(&self) -> &str {
        &self.key.id
    }

    /// `pmo / ny / pay`: the agents from the root, then the tool.
    pub fn path(&self) -> String {
        self.key.path_display()
    }

    /// Whether the shown arguments are the ones the key was made for.
    pub(crate) fn is_consistent(&self) -> bool {
        // Arguments that did not parse are shown as `null`; their digest is
        // of the text, which the state does not keep.
        self.arguments.is_null() || self.key.matches(&self.key.tool, &self.arguments)
    }
}

/// A decision given for a pending call, not yet used: it is used when the
/// call runs again with the same identity (on resume), and dropped when
/// the call's step ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResolvedApproval {
    /// The call, as it was shown.
    pub call: PendingApproval,
    /// The decision for this call: `approve`, `deny` or `approve_with`
    /// (a sticky decision given for it is kept as the tool's [`Sticky`]
    /// one, and this call's part of it here; a state holding any other is
    /// refused on import).
    pub decision: ApprovalDecision,
    /// The person who gave it, when the one who resolved it named one
    /// ([`Approvals::resolve_by`](super::Approvals::resolve_by)): the
    /// call's [`ApprovalNote::who`](crate::approval::ApprovalNote::who)
    /// when it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
}

/// Everything approval remembers, as plain serde data: settings, sticky
/// decisions, pending requests and decisions given but not yet used.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ApprovalState {
    /// The settings.
    #[serde(default)]
    pub settings: ApprovalSettings,
    /// Sticky decisions by scoped tool name (`pay`, `ny/pay`).
    #[serde(default)]
    pub sticky: BTreeMap<String, Sticky>,
    /// Remembered conditions by scoped tool name: a call whose arguments
    /// meet one is approved without asking
    /// ([`ApprovalDecision::AlwaysApproveWhen`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub conditions: BTreeMap<String, Vec<super::RememberedCondition>>,
    /// Remembered conditions that lapsed (the tool's schema changed) and
    /// were not yet shown to an approver.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lapsed: Vec<super::LapsedCondition>,
    /// Calls waiting for a decision.
    #[serde(default)]
    pub pending: Vec<PendingApproval>,
    /// Decisions given for pending calls, not yet used.
    #[serde(default)]
    pub resolved: Vec<ResolvedApproval>,
}

/// A call's part of the approvals ([`Approvals::at_call`](super::Approvals::at_call)).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct CallApprovals {
    pub(super) pending: Vec<PendingApproval>,
    pub(super) resolved: Vec<ResolvedApproval>,
    pub(super) sticky: BTreeMap<String, Sticky>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) conditions: BTreeMap<String, Vec<super::RememberedCondition>>,
    pub(super) settings: ApprovalSettings,
}

/// Why [`Approvals::resolve`](super::Approvals::resolve) refused a decision. Nothing was kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// No call waits under this id.
    #[error(
        "no call waits for a decision under id `{0}`: give the `id` of an entry of \
         `Approvals::pending()` (it names the call's agent path, step, call id, tool and \
         arguments); a decision is never kept for a later call"
    )]
    NotPending(String),
    /// The call was decided already.
    #[error("call `{path}` (id `{id}`) was already decided; this decision is ignored")]
    AlreadyDecided {
        /// The decision id.
        id: String,
        /// The call's path (`pmo / ny / pay`).
        path: String,
    },
    /// A decision that does not decide the call:
    /// [`Defer`](ApprovalDecision::Defer) (the call waits already), or one
    /// this version does not know.
    #[error(
        "`{decision}` does not decide call `{id}`: give `approve`, `deny`, `approve_with`, \
         `always_approve` or `always_deny`; nothing was decided"
    )]
    Undecided {
        /// The decision id.
        id: String,
        /// The decision given (`defer`, ..).
        decision: &'static str,
    },
    /// A remembered condition that is not registered for the call's tool,
    /// or whose parameters do not fit it.
    #[error("the condition for call `{id}` was refused: {error}; nothing was decided")]
    Condition {
        /// The decision id.
        id: String,
        /// Why.
        error: String,
    },
    /// Edited arguments that are not a JSON object: no tool takes them.
    #[error(
        "the edited arguments for call `{path}` (id `{id}`) are {got}, not a JSON object of \
         the tool's arguments: give an object such as `{{\"amount\": 5}}`; nothing was decided"
    )]
    NotAnObject {
        /// The decision id.
        id: String,
        /// The call's path (`pmo / ny / pay`).
        path: String,
        /// What was given instead (`an array`, `a string`, ..).
        got: &'static str,
    },
}
