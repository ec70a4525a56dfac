//! Human approval: the store of decisions that answers a chain's approval
//! requests.
//!
//! The chain asks through [`Approver`] (defined with the request, the gate
//! and the call's identity in `hookwire_chain::approve`); this layer
//! answers:
//!
//! * `approvals.rs`: [`Approvals`], the run's approver, which asks an
//!   [`Approver`] of its own (a person, a policy) and keeps its sticky
//!   decisions and pending calls as serde data ([`ApprovalState`]);
//! * `answer.rs`: how the shared core answers a gate (sticky, given,
//!   asked);
//! * `condition.rs`: [`ApprovalCondition`], the named conditions a
//!   remembered approval ("always approve `refund` when `amount <= 50`")
//!   names, bound to the tool's schema;
//! * `defer.rs`: [`DeferAll`], which leaves every call waiting;
//! * `spent.rs`: [`SpentDecisions`], the record of the decisions that ran
//!   a call, and [`MemorySpent`];
//! * `terminal.rs`: [`TerminalApprover`], which asks at the terminal.
//!
//! Every approver answers with an [`ApprovalDecision`]: once, always,
//! never, or later.
//!
//! What a gate knows of the tool (the approver's metadata, the type edited
//! arguments must fit) is its [`ToolView`](crate::ToolView).

mod answer;
mod approvals;
mod condition;
mod defer;
mod spent;
mod state;
mod terminal;

pub use crate::decision::{ApprovalDecision, ApproveWhen};
pub use approvals::Approvals;
pub(crate) use approvals::{ApprovalCore, ApprovalHost};
pub use condition::{ApprovalCondition, ConditionError, LapsedCondition, RememberedCondition};
pub use defer::DeferAll;
pub(crate) use hookwire_chain::approve::gate;
pub use hookwire_chain::approve::{
    ApprovalNote, ApprovalRequest, Approver, CallKey, CallSite, DecidedBy, FnApprover,
    NeedsApproval, PENDING_REASON,
};
pub use spent::{MemorySpent, SpentDecisions};
pub(crate) use state::CallApprovals;
pub use state::{
    ApprovalSettings, ApprovalState, PendingApproval, ResolveError, ResolvedApproval, Sticky,
};
pub use terminal::TerminalApprover;
