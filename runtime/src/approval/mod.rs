//! Human approval: who answers a hook's `Decision::Ask`.
//!
//! * this file: the request, the [`Approver`] (one decision per call) and
//!   [`FnApprover`];
//! * `ask.rs`: the [`Asker`] behind [`Approvals`] and its [`Answer`]s
//!   (once, always, never, later);
//! * `approvals.rs`: [`Approvals`], the run's approver, with its sticky
//!   decisions and pending calls as serde data ([`ApprovalState`]);
//! * `identity.rs`: [`CallKey`], the identity of a call that every decision
//!   names;
//! * `gate.rs`: [`NeedsApproval`], the per-tool approval gate in a chain,
//!   and the one gate every approval passes;
//! * `terminal.rs`: [`TerminalApprover`], which asks at the terminal.

use std::future::Future;
use std::pin::Pin;

use crate::call::ToolArgs;

mod approvals;
mod ask;
mod gate;
pub(crate) mod identity;
mod terminal;

pub use crate::decision::{Answer, ApprovalDecision};
pub use approvals::{
    ApprovalSettings, ApprovalState, Approvals, PendingApproval, ResolveError, ResolvedApproval,
    Sticky,
};
pub use ask::{Asker, DeferAll, FnAsker};
pub use gate::NeedsApproval;
pub(crate) use gate::{gate, gate_call};
pub use identity::{CallKey, CallSite};
pub use terminal::TerminalApprover;

/// What an approver is asked about.
#[derive(Debug)]
#[non_exhaustive]
pub struct ApprovalRequest<'a> {
    /// The agent making the call.
    pub agent: &'a str,
    /// The tool to be called.
    pub tool: &'a str,
    /// The model's id for the call.
    pub tool_use_id: &'a str,
    /// The arguments the tool would receive (after every rewrite so far).
    pub arguments: &'a ToolArgs,
    /// Why approval is needed (the asking hook's reason).
    pub reason: &'a str,
    /// The call's identity: a decision given for it applies to this call,
    /// with these arguments, only.
    pub key: &'a CallKey,
}

impl<'a> ApprovalRequest<'a> {
    /// The request about the call with `key` and `arguments`.
    pub(crate) fn new(key: &'a CallKey, arguments: &'a ToolArgs, reason: &'a str) -> Self {
        Self {
            agent: &key.agent,
            tool: &key.tool,
            tool_use_id: &key.id,
            arguments,
            reason,
            key,
        }
    }

    /// The arguments as a JSON value (`null` if they do not parse): what an
    /// approver shows. `arguments.get(..)` needs `&mut`; this does not.
    pub fn arguments_value(&self) -> serde_json::Value {
        self.arguments.to_value().unwrap_or(serde_json::Value::Null)
    }
}

/// A boxed future, the return type of object-safe async traits here.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Decides whether a call that needs approval may run.
///
/// Approval waits on a human or a policy service, so this trait is
/// object-safe and boxes its future; it is never on the hot path.
pub trait Approver: Send + Sync {
    /// Decides on one request.
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision>;
}

/// An approver from a synchronous function: the programmatic approver.
///
/// ```
/// # use hookwire::approval::{ApprovalDecision, FnApprover};
/// let approver = FnApprover::new(|req| {
///     if req.tool == "shell" {
///         ApprovalDecision::Deny("no shell".into())
///     } else {
///         ApprovalDecision::Approve
///     }
/// });
/// # let _ = approver;
/// ```
pub struct FnApprover<F>(F);

impl<F> FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> ApprovalDecision + Send + Sync,
{
    /// Wraps `decide`.
    pub fn new(decide: F) -> Self {
        Self(decide)
    }
}

impl<F> Approver for FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> ApprovalDecision + Send + Sync,
{
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        let decision = (self.0)(&request);
        Box::pin(std::future::ready(decision))
    }
}

/// The reason given to a call whose approval was deferred (the run pauses).
pub const PENDING_REASON: &str = "approval pending";
