//! Human approval: who answers a hook's `Decision::Ask`.
//!
//! * this file: the request, the [`Approver`] (one decision per call) and
//!   [`FnApprover`];
//! * `ask.rs`: the [`Asker`] behind [`Approvals`] and its [`Answer`]s
//!   (once, always, never, later);
//! * `approvals.rs`: [`Approvals`], the run's approver, with its sticky
//!   decisions and pending calls as serde data ([`ApprovalState`]);
//! * `gate.rs`: [`NeedsApproval`], the per-tool approval gate in a chain;
//! * `terminal.rs`: [`TerminalApprover`], which asks at the terminal.

use std::future::Future;
use std::pin::Pin;

use crate::call::ToolArgs;

mod approvals;
mod ask;
mod gate;
mod terminal;

pub use crate::decision::{Answer, ApprovalDecision};
pub use approvals::{ApprovalSettings, ApprovalState, Approvals, PendingApproval, Sticky};
pub use ask::{Asker, DeferAll, FnAsker};
pub use gate::NeedsApproval;
pub(crate) use gate::gate;
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
}

impl<'a> ApprovalRequest<'a> {
    /// The request about the call of `cx` with `arguments`.
    pub(crate) fn for_call(
        cx: &'a crate::context::ToolContext,
        arguments: &'a ToolArgs,
        reason: &'a str,
    ) -> Self {
        Self {
            agent: cx.agent(),
            tool: cx.tool(),
            tool_use_id: cx.tool_use_id(),
            arguments,
            reason,
        }
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
