//! The [`Asker`] behind [`Approvals`](super::Approvals): someone asked
//! about one call, who may answer once, always, never, or later.

use super::{ApprovalDecision, ApprovalRequest, FnApprover};
use crate::BoxFuture;

/// Asks someone (a human, a policy) about one call. Wrapped by
/// [`Approvals`](super::Approvals), which keeps sticky decisions and pending requests.
pub trait Asker: Send + Sync {
    /// Asks about one request.
    fn ask<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer>;
}

impl<F> Asker for FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> ApprovalDecision + Send + Sync,
{
    fn ask<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(std::future::ready(self.decide_now(&request).into()))
    }
}

/// The programmatic asker: a function from the request to an [`Answer`].
///
/// ```
/// # use hookwire::approval::{Answer, FnAsker};
/// let asker = FnAsker::new(|req| if req.tool == "rm" { Answer::AlwaysDeny } else { Answer::Approve });
/// # let _ = asker;
/// ```
pub struct FnAsker<F>(F);

impl<F: Fn(&ApprovalRequest<'_>) -> Answer + Send + Sync> FnAsker<F> {
    /// Wraps `ask`.
    pub fn new(ask: F) -> Self {
        Self(ask)
    }
}

impl<F: Fn(&ApprovalRequest<'_>) -> Answer + Send + Sync> Asker for FnAsker<F> {
    fn ask<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(std::future::ready((self.0)(&request)))
    }
}

/// An asker that defers every request: the run pauses, and the decisions
/// are given later through [`Approvals::resolve`](super::Approvals::resolve) (possibly in another
/// process, after the state was exported).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeferAll;

impl Asker for DeferAll {
    fn ask<'a>(&'a self, _request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(std::future::ready(Answer::Defer))
    }
}

/// An answer at an approval prompt: an [`ApprovalDecision`] for this call,
/// or for every later call of the same tool (sticky), or later (the run
/// pauses and can be resumed).
///
/// Wider than [`ApprovalDecision`]: the person asked may also say how long
/// the answer holds, which the [`Approvals`](super::Approvals)
/// asking them remember; the call itself is then approved or denied.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answer {
    /// Run this call.
    Approve,
    /// Do not run this call; the reason goes to the model.
    Deny(String),
    /// Run this call and every later call of this tool without asking.
    AlwaysApprove,
    /// Deny this call and every later call of this tool without asking.
    AlwaysDeny,
    /// Decide later: the call is recorded as pending and the run pauses.
    Defer,
    /// Run this call with these arguments instead of the ones shown
    /// ([`ApprovalDecision::ApproveWith`]).
    ApproveWith(serde_json::Value),
}

impl From<ApprovalDecision> for Answer {
    fn from(decision: ApprovalDecision) -> Self {
        match decision {
            ApprovalDecision::Approve => Self::Approve,
            ApprovalDecision::Deny(reason) => Self::Deny(reason),
            ApprovalDecision::ApproveWith(arguments) => Self::ApproveWith(arguments),
            // A decision this layer does not know fails closed.
            other => Self::Deny(format!("unsupported approval decision {other:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approval_decision_is_an_answer_for_this_call() {
        assert_eq!(Answer::from(ApprovalDecision::Approve), Answer::Approve);
        assert_eq!(
            Answer::from(ApprovalDecision::Deny("no".into())),
            Answer::Deny("no".into())
        );
    }
}
