//! [`DeferAll`]: the approver that leaves every call waiting, so that the
//! decisions are given later (another process, another day).

use super::{ApprovalDecision, ApprovalRequest, Approver};
use crate::BoxFuture;

/// An approver that defers every request ([`ApprovalDecision::Defer`]):
/// inside [`Approvals`](super::Approvals) the call waits and the run
/// pauses, and the decisions are given later through
/// [`Approvals::resolve`](super::Approvals::resolve) (possibly in another
/// process, after the state was exported). Asked directly by a chain's
/// gate (no `Approvals`), the call does not run.
///
/// ```
/// # use hookwire::approval::{Approvals, DeferAll};
/// let approvals = Approvals::new(DeferAll);
/// assert!(approvals.pending().is_empty());
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct DeferAll;

impl Approver for DeferAll {
    fn decide<'a>(&'a self, _request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        Box::pin(std::future::ready(ApprovalDecision::Defer))
    }
}
