//! [`Approvals`]: the approver an agent run uses, with its sticky
//! decisions, pending calls and given decisions as serde data.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use super::answer::always_denied;
use super::{ApprovalDecision, ApprovalRequest, Approver, CallKey, DecidedBy, SpentDecisions};
use crate::BoxFuture;
use crate::scope::CallScope;

use super::state::{
    ApprovalState, CallApprovals, PendingApproval, ResolveError, ResolvedApproval, Sticky,
};

/// The approver an agent run uses: sticky decisions first, then decisions
/// given for pending calls, then the [`Approver`] it asks (a person, a
/// policy). Cloning shares the state.
///
/// What it does with the approver's [`ApprovalDecision`]:
/// [`Approve`](ApprovalDecision::Approve), [`Deny`](ApprovalDecision::Deny)
/// and [`ApproveWith`](ApprovalDecision::ApproveWith) decide this call;
/// [`AlwaysApprove`](ApprovalDecision::AlwaysApprove) and
/// [`AlwaysDeny`](ApprovalDecision::AlwaysDeny) decide it and are kept as
/// the tool's [`Sticky`] decision, so that its later calls are not asked
/// about; [`Defer`](ApprovalDecision::Defer) keeps the call waiting
/// ([`pending`](Self::pending)) until a decision is given for it
/// ([`resolve`](Self::resolve)). It answers whoever asks it (the loop's
/// gate, a chain's) with a decision for this call only, or `Defer` for a
/// call it keeps waiting.
///
/// ```
/// # use hookwire::approval::{ApprovalDecision, Approvals, FnApprover, Sticky};
/// let approvals = Approvals::new(FnApprover::new(|_| ApprovalDecision::AlwaysApprove));
/// approvals.set_sticky("search", Sticky::AlwaysDeny);
/// assert_eq!(approvals.state().sticky["search"], Sticky::AlwaysDeny);
/// ```
#[derive(Clone)]
pub struct Approvals {
    shared: Arc<dyn ApprovalHost>,
}

/// What holds the [`ApprovalCore`] the clones of one [`Approvals`] share:
/// the core itself, or a block that keeps it beside other things (the
/// agent loop's session link, with its call log and child-agent maps), so
/// that a new session allocates them all at once. The holder is also the
/// run's approver (`Arc<dyn Approver>`), without another allocation.
pub(crate) trait ApprovalHost: Approver {
    /// The approval core it holds.
    fn core(&self) -> &ApprovalCore;
}

/// What the clones of one [`Approvals`] share: the approval state, the
/// spent decision ids and the approver they ask.
#[derive(Default)]
pub(crate) struct ApprovalCore {
    state: Mutex<ApprovalState>,
    /// The ids of decisions used to run a call: never accepted again, not
    /// even from an imported state; and where they are recorded too.
    spent: Mutex<Spent>,
    pub(super) approver: Option<Arc<dyn Approver>>,
    /// How often tool names were given from outside (`require`,
    /// `set_sticky`, a state put in): a runner checks the names against
    /// its agent's tools when this changed since it last looked, so that a
    /// run with none given reads one number.
    names: AtomicU64,
    /// The conditions remembered decisions may name
    /// ([`Approvals::with_condition`]).
    pub(super) conditions: Mutex<Vec<super::ApprovalCondition>>,
    /// The digest of each tool's input schema, by scoped name, as the
    /// runs that offered it last saw it (filled only when conditions are
    /// registered or remembered).
    pub(super) schemas: Mutex<std::collections::BTreeMap<String, String>>,
}

/// The decisions used to run a call, by id.
#[derive(Default)]
struct Spent {
    /// The ids this core used.
    /// (A `BTreeSet`: an empty one costs nothing to make, where a
    /// `HashSet` seeds its hasher on every session.)
    ids: BTreeSet<String>,
    /// Where they are recorded too, shared with other runners (a
    /// [`StateSeal`](crate::agent::StateSeal)'s record).
    store: Option<Arc<dyn SpentDecisions>>,
}

impl std::fmt::Debug for Approvals {
    #[inline]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals")
            .field("state", &*self.lock())
            .field("approver", &self.core().approver.is_some())
            .finish()
    }
}

impl Default for Approvals {
    #[inline]
    fn default() -> Self {
        Self::none()
    }
}

impl Approvals {
    /// Approvals that ask `approver` (a person, a policy) about every call
    /// no sticky or given decision answers.
    pub fn new(approver: impl Approver + 'static) -> Self {
        Self::from_arc(Arc::new(approver))
    }

    /// Approvals that ask a shared approver.
    #[inline]
    pub fn from_arc(approver: Arc<dyn Approver>) -> Self {
        Self {
            shared: Arc::new(ApprovalCore {
                approver: Some(approver),
                ..ApprovalCore::default()
            }),
        }
    }

    /// Approvals with nobody to ask: every request that no sticky or given
    /// decision answers is denied (fail closed).
    #[inline]
    pub fn none() -> Self {
        Self {
            shared: Arc::new(ApprovalCore::default()),
        }
    }

    /// Approvals kept in `host` (the agent loop's session block, which
    /// holds a fresh [`ApprovalCore`]: these are then as
    /// [`none`](Self::none)), without another allocation.
    #[inline]
    pub(crate) fn in_host(host: Arc<dyn ApprovalHost>) -> Self {
        Self { shared: host }
    }

    /// These approvals as a call scope's approver: the shared block, no
    /// allocation.
    #[inline]
    pub(crate) fn approver(&self) -> Arc<dyn Approver> {
        self.shared.clone()
    }

    /// The shared core.
    #[inline]
    pub(super) fn core(&self) -> &ApprovalCore {
        self.shared.core()
    }

    /// Replaces the state (to restore an exported one).
    #[inline]
    pub fn with_state(self, state: ApprovalState) -> Self {
        self.replace_state(state);
        self
    }

    /// Replaces the state in place (every clone sees it).
    #[inline]
    pub fn replace_state(&self, state: ApprovalState) {
        *self.lock() = state;
        self.names_given();
    }

    /// Notes that tool names were given from outside.
    #[inline]
    pub(super) fn names_given(&self) {
        self.core().names.fetch_add(1, Ordering::Relaxed);
    }

    /// A number that changes whenever tool names are given from outside
    /// (`require`, `set_sticky`, a state put in); 0 when none ever were.
    #[inline]
    pub(crate) fn names_generation(&self) -> u64 {
        self.core().names.load(Ordering::Relaxed)
    }

    /// The scoped tool names these approvals hold, each with where it is
    /// given: the tools that need approval, then the sticky decisions.
    pub(crate) fn named_tools(&self) -> Vec<(&'static str, String)> {
        let state = self.lock();
        let required = state.settings.needs_approval.iter();
        let sticky = state.sticky.keys();
        let conditions = state.conditions.keys();
        required
            .map(|n| ("`Approvals::require`", n.clone()))
            .chain(sticky.map(|n| ("a sticky decision", n.clone())))
            .chain(conditions.map(|n| ("a remembered condition", n.clone())))
            .collect()
    }

    #[inline]
    pub(super) fn lock(&self) -> MutexGuard<'_, ApprovalState> {
        self.core().lock()
    }

    /// A copy of the state, to export.
    #[inline]
    pub fn state(&self) -> ApprovalState {
        self.lock().clone()
    }

    /// Whether someone is asked (the [`Approver`] given to
    /// [`new`](Self::new)); without one, every request that no sticky or
    /// given decision answers is denied.
    #[inline]
    pub fn has_approver(&self) -> bool {
        self.core().approver.is_some()
    }

    /// Records a sticky decision for a tool, by scoped name: `pay` is the
    /// root agent's tool, `ny/pay` the tool `pay` of its child agent `ny`
    /// (called as `agent__ny`), `ny/audit/pay` one level further down. A
    /// decision for one agent's tool never applies to another agent's tool
    /// of the same name.
    ///
    /// The name must select a tool: a run whose approvals name a tool its
    /// agent does not have (or a child agent it does not have, or a tool
    /// that child does not have) is refused when it starts, with
    /// [`SetupError::UnknownTool`](crate::agent::SetupError::UnknownTool)
    /// and the nearest name, before anything runs.
    pub fn set_sticky(&self, tool: impl Into<String>, sticky: Sticky) {
        self.lock().sticky.insert(tool.into(), sticky);
        self.names_given();
    }

    /// Makes every call of a tool need approval, by scoped name (as
    /// [`set_sticky`](Self::set_sticky)): `require("ny/pay")` reaches the
    /// child agent `ny`'s tool `pay`.
    ///
    /// The name must select a tool, as for [`set_sticky`](Self::set_sticky):
    /// a run is refused when it starts if it does not (a typo would
    /// otherwise leave the tool it meant without a guard).
    pub fn require(&self, tool: impl Into<String>) {
        self.lock().settings.needs_approval.insert(tool.into());
        self.names_given();
    }

    /// Whether a tool needs approval by the settings, by scoped name.
    #[inline]
    pub fn is_required(&self, tool: &str) -> bool {
        self.lock().settings.needs_approval.contains(tool)
    }

    /// Whether the tool `tool` of the run of `scope` needs approval by the
    /// settings (nothing is allocated when no tool is required).
    #[inline]
    pub(crate) fn requires(&self, scope: &crate::CallScope, tool: &str) -> bool {
        let state = self.lock();
        !state.settings.needs_approval.is_empty()
            && state
                .settings
                .needs_approval
                .contains(&scope.scoped_tool(tool))
    }

    /// Calls waiting for a decision (of every session these approvals
    /// serve).
    #[inline]
    pub fn pending(&self) -> Vec<PendingApproval> {
        self.lock().pending.clone()
    }

    /// Gives the decision for a pending call, by its
    /// [`id`](PendingApproval::id); it is used when the call runs again
    /// with the same identity (on resume), and only then. Returns the call
    /// decided.
    ///
    /// A decision for an id that is not pending is refused and changes
    /// nothing: it is never kept for a later call. If the call's arguments
    /// are not the ones shown when it runs again, the decision does not
    /// apply to it.
    ///
    /// [`ApprovalDecision::ApproveWith`] (see
    /// [`resolve_with`](Self::resolve_with)) must give a JSON object; the
    /// call's gate checks it against the tool's argument type when the
    /// call runs again, and denies the call if it does not fit.
    ///
    /// A sticky decision may be given:
    /// [`AlwaysApprove`](ApprovalDecision::AlwaysApprove) approves the
    /// call and [`AlwaysDeny`](ApprovalDecision::AlwaysDeny) denies it, and
    /// either is kept at once as the tool's [`Sticky`] decision (by scoped
    /// name, as [`set_sticky`](Self::set_sticky)) for its later calls.
    /// [`Defer`](ApprovalDecision::Defer) decides nothing (the call waits
    /// already), and a decision this version does not know is refused
    /// too: [`ResolveError::Undecided`].
    ///
    /// ```
    /// # use hookwire::approval::{ApprovalDecision, Approvals, DeferAll, ResolveError};
    /// let approvals = Approvals::new(DeferAll);
    /// let refused = approvals.resolve("any-id", ApprovalDecision::Defer);
    /// assert!(matches!(refused, Err(ResolveError::Undecided { .. })));
    /// ```
    pub fn resolve(
        &self,
        id: &str,
        decision: ApprovalDecision,
    ) -> Result<PendingApproval, ResolveError> {
        self.resolve_by(id, decision, None)
    }

    /// [`resolve`](Self::resolve), naming the person who decided (`who`):
    /// the call's [`ApprovalNote::who`](crate::approval::ApprovalNote::who)
    /// when it runs (a durable session's `approve` with `"who"`, say).
    pub fn resolve_by(
        &self,
        id: &str,
        decision: ApprovalDecision,
        who: Option<&str>,
    ) -> Result<PendingApproval, ResolveError> {
        let sticky = match &decision {
            ApprovalDecision::Approve
            | ApprovalDecision::Deny(_)
            | ApprovalDecision::ApproveWith(_) => None,
            ApprovalDecision::AlwaysApprove => Some(Sticky::AlwaysApprove),
            ApprovalDecision::AlwaysDeny => Some(Sticky::AlwaysDeny),
            ApprovalDecision::AlwaysApproveWhen(when) => {
                return self.resolve_when(id, when.clone(), who);
            }
            other => {
                return Err(ResolveError::Undecided {
                    id: id.to_owned(),
                    decision: other.as_str(),
                });
            }
        };
        let mut state = self.lock();
        if let ApprovalDecision::ApproveWith(arguments) = &decision
            && !arguments.is_object()
        {
            let path = state.pending.iter().find(|p| p.key.id() == id);
            return Err(match path {
                Some(call) => ResolveError::NotAnObject {
                    id: id.to_owned(),
                    path: call.path(),
                    got: hookwire_chain::call::json_kind(arguments),
                },
                None => ResolveError::NotPending(id.to_owned()),
            });
        }
        if let Some(done) = state.resolved.iter().find(|r| r.call.key.id() == id) {
            return Err(ResolveError::AlreadyDecided {
                id: id.to_owned(),
                path: done.call.path(),
            });
        }
        let Some(at) = state.pending.iter().position(|p| p.key.id() == id) else {
            return Err(ResolveError::NotPending(id.to_owned()));
        };
        let call = state.pending.remove(at);
        tracing::info!(
            target: "hookwire::audit",
            path = %call.path(),
            id,
            decision = decision.label(),
            "approval given"
        );
        // A sticky decision is the tool's from now on; the call itself
        // keeps the decision for it alone.
        let decision = match sticky {
            Some(sticky) => {
                let scoped = call.key.scoped_tool();
                let once = match sticky {
                    Sticky::AlwaysApprove => ApprovalDecision::Approve,
                    Sticky::AlwaysDeny => ApprovalDecision::Deny(always_denied(&scoped)),
                };
                state.sticky.insert(scoped, sticky);
                once
            }
            None => decision,
        };
        state.resolved.push(ResolvedApproval {
            who: who.map(str::to_owned),
            ..ResolvedApproval::new(call.clone(), decision)
        });
        Ok(call)
    }

    /// [`resolve`](Self::resolve) with a remembered condition: the call is
    /// approved, and the condition remembered for its tool (checked first:
    /// a condition not registered, or parameters that do not fit, decide
    /// nothing).
    fn resolve_when(
        &self,
        id: &str,
        when: super::ApproveWhen,
        who: Option<&str>,
    ) -> Result<PendingApproval, ResolveError> {
        let scoped = {
            let state = self.lock();
            let call = state.pending.iter().find(|p| p.key.id() == id);
            call.map(|p| p.key.scoped_tool())
        };
        let Some(scoped) = scoped else {
            // Not pending: `resolve` says why (not pending, decided).
            return self
                .resolve(id, ApprovalDecision::Approve)
                .and(Err(ResolveError::NotPending(id.to_owned())));
        };
        let remembered = self
            .checked(&scoped, when)
            .map_err(|e| ResolveError::Condition {
                id: id.to_owned(),
                error: e.to_string(),
            })?;
        let call = self.resolve_by(id, ApprovalDecision::Approve, who)?;
        self.lock().remember(scoped, remembered);
        self.names_given();
        Ok(call)
    }

    /// Approves a pending call with edited arguments: the call runs with
    /// `arguments` instead of the ones shown
    /// ([`ApprovalDecision::ApproveWith`]), if they fit the tool's argument
    /// type when it runs again (else it is denied and never runs).
    ///
    /// ```
    /// # use hookwire::approval::{Approvals, DeferAll, ResolveError};
    /// let approvals = Approvals::new(DeferAll);
    /// let refused = approvals.resolve_with("no-such-id", serde_json::json!({"amount": 5}));
    /// assert!(matches!(refused, Err(ResolveError::NotPending(_))));
    /// ```
    #[inline]
    pub fn resolve_with(
        &self,
        id: &str,
        arguments: Value,
    ) -> Result<PendingApproval, ResolveError> {
        self.resolve(id, ApprovalDecision::ApproveWith(arguments))
    }

    /// Drops the calls waiting for a decision and the decisions not yet
    /// used (sticky decisions and settings stay).
    #[inline]
    pub fn clear_waiting(&self) {
        let mut state = self.lock();
        state.pending.clear();
        state.resolved.clear();
    }

    /// Whether a decision id was used to run a call (in this value or a
    /// clone of it).
    #[inline]
    pub(crate) fn is_spent(&self, id: &str) -> bool {
        let spent = crate::lock(&self.core().spent);
        spent.ids.contains(id) || spent.store.as_ref().is_some_and(|s| s.is_spent(id))
    }

    /// Records the decisions these approvals use in `store` too (and
    /// refuses one `store` holds already).
    pub(crate) fn keep_spent_in(&self, store: Arc<dyn SpentDecisions>) {
        crate::lock(&self.core().spent).store = Some(store);
    }

    /// Whether the call `id` made in `scope` (or a call of an agent it
    /// runs) waits for a decision, or has one not yet used.
    pub(crate) fn waits_at(&self, scope: &CallScope, id: &str) -> bool {
        // Nothing waits (the common case): no call site is made.
        {
            let state = self.lock();
            if state.pending.is_empty() && state.resolved.is_empty() {
                return false;
            }
        }
        let site = scope.site(id);
        let state = self.lock();
        state
            .pending
            .iter()
            .map(|p| &p.key)
            .chain(state.resolved.iter().map(|r| &r.call.key))
            .any(|k| k.is_at_or_below(scope.correlation_id(), scope.path(), &site))
    }

    /// The calls of the run of `scope` (and of the agents below it) that
    /// wait for a decision.
    #[inline]
    pub(crate) fn pending_within(&self, scope: &CallScope) -> Vec<PendingApproval> {
        self.lock()
            .pending
            .iter()
            .filter(|p| p.key.is_within(scope.correlation_id(), scope.path()))
            .cloned()
            .collect()
    }

    /// Drops what waits at the call `id` made in `scope`, and below it.
    #[inline]
    pub(crate) fn forget_at(&self, scope: &CallScope, id: &str) {
        let site = scope.site(id);
        self.forget(|k| k.is_at_or_below(scope.correlation_id(), scope.path(), &site));
    }

    /// Drops what waits in the run of `scope` and below: a run that
    /// starts, or a step that ended, leaves nothing a later call could
    /// match.
    #[inline]
    pub(crate) fn forget_within(&self, scope: &CallScope) {
        self.forget(|k| k.is_within(scope.correlation_id(), scope.path()));
    }

    /// What a call of `scope` (`id`) and the agents it runs left in the
    /// approvals: what waits at it and below, and the sticky decisions and
    /// settings (which only grow during a call). Recorded with a journaled
    /// call, so that a replay restores exactly that call's part, whatever
    /// the calls run beside it did.
    pub(crate) fn at_call(&self, scope: &CallScope, id: &str) -> CallApprovals {
        let site = scope.site(id);
        let at = |k: &CallKey| k.is_at_or_below(scope.correlation_id(), scope.path(), &site);
        let state = self.lock();
        CallApprovals {
            pending: state
                .pending
                .iter()
                .filter(|p| at(&p.key))
                .cloned()
                .collect(),
            resolved: state
                .resolved
                .iter()
                .filter(|r| at(&r.call.key))
                .cloned()
                .collect(),
            sticky: state.sticky.clone(),
            conditions: state.conditions.clone(),
            settings: state.settings.clone(),
        }
    }

    /// Restores what [`at_call`](Self::at_call) recorded for the call
    /// `id` of `scope`: what waits at it and below is replaced, the sticky
    /// decisions and settings are added.
    #[inline]
    pub(crate) fn restore_call(&self, scope: &CallScope, id: &str, call: CallApprovals) {
        self.forget_at(scope, id);
        let mut state = self.lock();
        state.pending.extend(call.pending);
        state.resolved.extend(call.resolved);
        state.sticky.extend(call.sticky);
        state.conditions.extend(call.conditions);
        state
            .settings
            .needs_approval
            .extend(call.settings.needs_approval);
    }

    /// Drops the pending calls and unused decisions whose key `gone` picks.
    fn forget(&self, gone: impl Fn(&CallKey) -> bool) {
        let mut state = self.lock();
        state.pending.retain(|p| !gone(&p.key));
        state.resolved.retain(|r| !gone(&r.call.key));
    }
}

impl Approver for Approvals {
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        self.shared.decide(request)
    }

    fn decide_noted<'a>(
        &'a self,
        request: ApprovalRequest<'a>,
    ) -> BoxFuture<'a, (ApprovalDecision, DecidedBy)> {
        self.shared.decide_noted(request)
    }
}

impl ApprovalCore {
    #[inline]
    pub(super) fn lock(&self) -> MutexGuard<'_, ApprovalState> {
        crate::lock(&self.state)
    }

    /// Records the decision `id` as used; `false` when the shared record
    /// had it already (another runner used it).
    pub(super) fn spend(&self, id: String) -> bool {
        let mut spent = crate::lock(&self.spent);
        let fresh = spent.store.as_ref().is_none_or(|store| store.spend(&id));
        spent.ids.insert(id);
        fresh
    }
}

impl ApprovalHost for ApprovalCore {
    #[inline]
    fn core(&self) -> &ApprovalCore {
        self
    }
}
