//! How the approvals' shared core answers a gate: sticky decisions first,
//! then remembered conditions the call meets, then a decision given for
//! the call (used once), then the approver it asks, whose answer it
//! remembers (sticky, a condition, pending).

use serde_json::Value;

use super::approvals::ApprovalCore;
use super::state::{PendingApproval, Sticky};
use super::{ApprovalDecision, ApprovalRequest, Approver, DecidedBy};
use crate::BoxFuture;

impl Approver for ApprovalCore {
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        Box::pin(async move { self.decide_noted(request).await.0 })
    }

    fn decide_noted<'a>(
        &'a self,
        request: ApprovalRequest<'a>,
    ) -> BoxFuture<'a, (ApprovalDecision, DecidedBy)> {
        Box::pin(async move {
            let key = request.key;
            let scoped = key.scoped_tool();
            {
                let mut state = self.lock();
                if let Some(&sticky) = state.sticky.get(&scoped) {
                    // A decision given for this call while it waited (with
                    // a sticky one: `resolve`) is decided by the sticky
                    // decision now, and is spent.
                    if let Some(at) = state.resolved.iter().position(|r| r.call.key == *key) {
                        state.resolved.remove(at);
                        self.spend(key.id());
                    }
                    return match sticky {
                        Sticky::AlwaysApprove => (ApprovalDecision::Approve, DecidedBy::Sticky),
                        Sticky::AlwaysDeny => (
                            ApprovalDecision::Deny(always_denied(&scoped)),
                            DecidedBy::Sticky,
                        ),
                    };
                }
                if let Some(remembered) = state.conditions.get(&scoped).cloned() {
                    drop(state);
                    if self.met(&remembered, &scoped, request.arguments).is_some() {
                        let mut state = self.lock();
                        if let Some(at) = state.resolved.iter().position(|r| r.call.key == *key) {
                            state.resolved.remove(at);
                            self.spend(key.id());
                        }
                        return (ApprovalDecision::Approve, DecidedBy::Condition);
                    }
                    state = self.lock();
                }
                if let Some(at) = state.resolved.iter().position(|r| r.call.key == *key) {
                    let used = state.resolved.remove(at);
                    if !self.spend(key.id()) {
                        let reason = format!(
                            "the decision for `{}` was already used to run it (the same state \
                             was imported twice): an approved call runs once",
                            key.path_display()
                        );
                        return (ApprovalDecision::Deny(reason), DecidedBy::Resolved);
                    }
                    if let Some(who) = used.who {
                        request.decided_by(who);
                    }
                    return (used.decision, DecidedBy::Resolved);
                }
            }
            let Some(approver) = &self.approver else {
                let reason = format!(
                    "approval required ({}) but no approver is configured",
                    request.reason
                );
                return (ApprovalDecision::Deny(reason), DecidedBy::NoApprover);
            };
            let note = self.lapse_notes(&scoped);
            let request = request.with_note(note.clone());
            let pending = PendingApproval {
                key: key.clone(),
                arguments: request.arguments.to_value().unwrap_or(Value::Null),
                reason: request.reason.to_owned(),
                metadata: request.metadata().cloned(),
                note,
            };
            match approver.decide(request).await {
                decision @ (ApprovalDecision::Approve
                | ApprovalDecision::ApproveWith(_)
                | ApprovalDecision::Deny(_)) => (decision, DecidedBy::Asker),
                ApprovalDecision::AlwaysApprove => {
                    self.lock().sticky.insert(scoped, Sticky::AlwaysApprove);
                    (ApprovalDecision::Approve, DecidedBy::AskerAlways)
                }
                ApprovalDecision::AlwaysDeny => {
                    let reason = always_denied(&scoped);
                    self.lock().sticky.insert(scoped, Sticky::AlwaysDeny);
                    (ApprovalDecision::Deny(reason), DecidedBy::AskerAlways)
                }
                ApprovalDecision::AlwaysApproveWhen(when) => match self.checked(&scoped, when) {
                    Ok(remembered) => {
                        self.lock().remember(scoped, remembered);
                        (ApprovalDecision::Approve, DecidedBy::AskerAlways)
                    }
                    // A condition these approvals cannot check fails
                    // closed: nothing is remembered, the call is denied.
                    Err(e) => (ApprovalDecision::Deny(e.to_string()), DecidedBy::Asker),
                },
                ApprovalDecision::Defer => {
                    let mut state = self.lock();
                    state.pending.retain(|p| p.key != pending.key);
                    state.pending.push(pending);
                    (ApprovalDecision::Defer, DecidedBy::Deferred)
                }
                // A decision this version does not know fails closed.
                other => {
                    let reason = format!(
                        "the approver's decision `{}` is not one these approvals know, so \
                         the call is denied",
                        other.as_str()
                    );
                    (ApprovalDecision::Deny(reason), DecidedBy::Asker)
                }
            }
        })
    }
}

impl ApprovalCore {
    /// The notes of the scoped tool's conditions that lapsed, taken (an
    /// approver is shown them once), `None` when there are none.
    fn lapse_notes(&self, scoped: &str) -> Option<String> {
        let mut state = self.lock();
        if state.lapsed.is_empty() {
            return None;
        }
        let (shown, kept) = std::mem::take(&mut state.lapsed)
            .into_iter()
            .partition::<Vec<_>, _>(|l| l.tool == scoped);
        state.lapsed = kept;
        let notes: Vec<String> = shown.into_iter().map(|l| l.note).collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

/// The reason a call is denied by a tool's "always deny" decision.
pub(super) fn always_denied(scoped: &str) -> String {
    format!("calls of `{scoped}` are always denied")
}
