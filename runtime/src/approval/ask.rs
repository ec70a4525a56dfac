//! The [`Asker`] behind [`Approvals`](super::Approvals): someone asked
//! about one call, who may answer once, always, never, or later.

use super::{Answer, ApprovalDecision, ApprovalRequest, BoxFuture, FnApprover};

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
        Box::pin(std::future::ready((self.0)(&request).into()))
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
