//! The loop's side of a run's calls: what it implements of the chain's
//! [`RunChannel`], and where it keeps what the session's calls share.
//!
//! A session has one [`SessionLink`] (its call log, its child agents'
//! histories and paused runs, and the approval core of the approvals it
//! starts with); it is the run's channel and that approver as it is. A run
//! that someone streams, or that has a usage limit, gets a [`RunLink`]
//! around it, which carries the event queue and the budget to the calls
//! and to the child agents they run; it is the scope's channel and its
//! host value, which is how the loop finds them again from any call's
//! scope ([`LinkExt`]) without a dynamic check when there are none.

use std::any::Any;
use std::sync::{Arc, Mutex};

use super::{Budget, ChildHistories, EventKind, EventTx, PausedChildren, RunEvent};
use crate::BoxFuture;
use crate::approval::{
    ApprovalCore, ApprovalDecision, ApprovalHost, ApprovalRequest, Approver, DecidedBy,
};
use crate::call_log::CallLog;
use crate::channel::{CallReport, RunChannel};
use crate::scope::CallScope;

/// What the runs of one session share with their calls: one allocation per
/// session, which also holds the approval core of the session's first
/// [`Approvals`](crate::approval::Approvals) (they stay usable, and this
/// core unused, when the runner is given others).
#[derive(Default)]
pub(crate) struct SessionLink {
    /// The approval core of the approvals the session starts with.
    approvals: ApprovalCore,
    /// Where the calls of the session's runs note what their tool received.
    pub(crate) log: CallLog,
    /// The histories the session keeps for its child agents.
    pub(crate) children: Mutex<ChildHistories>,
    /// The runs of child agents paused for approval, by the parent's call id.
    pub(crate) paused: Mutex<PausedChildren>,
    /// The session's metadata, which its lifecycle hooks read and write.
    pub(crate) metadata: crate::agent::RunMetadata,
}

impl RunChannel for SessionLink {
    #[inline]
    fn call_log(&self) -> Option<&CallLog> {
        Some(&self.log)
    }
}

impl ApprovalHost for SessionLink {
    #[inline]
    fn core(&self) -> &ApprovalCore {
        &self.approvals
    }
}

impl Approver for SessionLink {
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        self.approvals.decide(request)
    }

    fn decide_noted<'a>(
        &'a self,
        request: ApprovalRequest<'a>,
    ) -> BoxFuture<'a, (ApprovalDecision, DecidedBy)> {
        self.approvals.decide_noted(request)
    }
}

/// A run's channel when it has live events or a usage limit: the session's
/// link, and both.
struct RunLink {
    session: Arc<SessionLink>,
    events: Option<EventTx>,
    budget: Option<Arc<Budget>>,
}

impl RunChannel for RunLink {
    #[inline]
    fn call_log(&self) -> Option<&CallLog> {
        Some(&self.session.log)
    }

    fn report(&self, scope: &CallScope, call_id: &str, report: CallReport<'_>) {
        let Some(tx) = &self.events else { return };
        let step = scope.step();
        let kind = match report {
            CallReport::Progress { tool, message } => EventKind::Progress {
                step,
                id: call_id.to_owned(),
                tool: tool.to_owned(),
                message: message.to_owned(),
            },
            CallReport::ApprovalWait { tool, gate, reason } => EventKind::ApprovalWait {
                step,
                id: call_id.to_owned(),
                tool: tool.to_owned(),
                gate: gate.to_owned(),
                reason: reason.to_owned(),
            },
            _ => return,
        };
        send(tx, scope, kind);
    }
}

/// Sends `kind` as an event of the run of `scope`: what every live event
/// the loop or a call sends goes through.
#[inline]
fn send(tx: &EventTx, scope: &CallScope, kind: EventKind) {
    let _ = tx.send(RunEvent {
        agent: scope.agent_arc(),
        path: scope.path_arc(),
        kind,
    });
}

/// The loop's view of a call scope's channel.
pub(crate) trait LinkExt {
    /// The run's live events, if someone streams it.
    fn events(&self) -> Option<&EventTx>;
    /// The run's usage limit, if it has one.
    fn budget(&self) -> Option<&Arc<Budget>>;
    /// Sends the live event `kind()` makes, when someone streams the run;
    /// otherwise `kind` is not called.
    fn emit(&self, kind: impl FnOnce() -> EventKind);
    /// Sets the run's events and usage limit, keeping its session's link:
    /// nothing is allocated when there are neither.
    fn set_run_link(
        &mut self,
        session: &Arc<SessionLink>,
        events: Option<EventTx>,
        budget: Option<Arc<Budget>>,
    );
}

/// The scope's [`RunLink`], if it has one: kept as the scope's host value
/// too, so that a run with neither events nor a budget finds none with one
/// branch (no dynamic type check).
#[inline]
fn run_link(scope: &CallScope) -> Option<&RunLink> {
    let host: &dyn Any = &**scope.host()?;
    host.downcast_ref()
}

impl LinkExt for CallScope {
    #[inline]
    fn events(&self) -> Option<&EventTx> {
        run_link(self)?.events.as_ref()
    }

    #[inline]
    fn budget(&self) -> Option<&Arc<Budget>> {
        run_link(self)?.budget.as_ref()
    }

    fn emit(&self, kind: impl FnOnce() -> EventKind) {
        if let Some(tx) = self.events() {
            send(tx, self, kind());
        }
    }

    #[inline]
    fn set_run_link(
        &mut self,
        session: &Arc<SessionLink>,
        events: Option<EventTx>,
        budget: Option<Arc<Budget>>,
    ) {
        if events.is_none() && budget.is_none() {
            self.set_channel(Some(session.clone()));
            self.set_host(None);
        } else {
            let link = Arc::new(RunLink {
                session: session.clone(),
                events,
                budget,
            });
            self.set_channel(Some(link.clone()));
            self.set_host(Some(link));
        }
    }
}
