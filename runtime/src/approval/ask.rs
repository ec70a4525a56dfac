//! The [`Asker`] behind [`Approvals`](super::Approvals): someone asked
//! about one call, who may answer once, always, never, or later.

use super::{ApprovalDecision, ApprovalRequest, BoxFuture, FnApprover};

/// An answer at an approval prompt: once, or for every later call of the
/// same tool (sticky), or later (the run pauses and can be resumed).
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
}

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
        let answer = match (self.0)(&request) {
            ApprovalDecision::Approve => Answer::Approve,
            ApprovalDecision::Deny(reason) => Answer::Deny(reason),
        };
        Box::pin(std::future::ready(answer))
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
