//! The scope of a run's calls: what every call of one run shares (the
//! agent, the correlation id, the approver, the session's values, where the
//! call stands in the run) and the one channel up to the run.

use std::any::Any;
use std::sync::{Arc, LazyLock};

use crate::approve::identity::CallPlace;
use crate::approve::{Approver, CallSite};
use crate::call::CallStr;
use crate::call_log::CallLog;
use crate::channel::RunChannel;
use crate::context::{ToolContext, ToolSource};

/// What every call of one run shares: the agent, the correlation id and the
/// approver.
///
/// It is one shared allocation: cloning it, and making the
/// [`ToolContext`] of a call from it, costs one reference count, however
/// many of the three are set.
///
/// ```
/// # use hookwire::CallScope;
/// let scope = CallScope::new("planner").with_correlation_id("run-7");
/// let cx = scope.context("search".into(), hookwire::ToolSource::Function, None, "call-1".into());
/// assert_eq!((cx.agent(), cx.correlation_id()), ("planner", "run-7"));
/// ```
#[derive(Clone)]
pub struct CallScope {
    shared: Arc<Shared>,
}

/// The fields of a [`CallScope`], behind its one `Arc`.
#[derive(Clone, Default)]
struct Shared {
    agent: Arc<str>,
    correlation_id: Arc<str>,
    approver: Option<Arc<dyn Approver>>,
    session: SessionValues,
    /// The run's side of the calls: their log and what they report
    /// (set by the agent loop; `None` outside a run).
    channel: Option<Arc<dyn RunChannel>>,
    /// The run's own value, which the chain carries and never reads (the
    /// agent loop's live events and budget); `None` costs one branch.
    host: Option<Arc<dyn Any + Send + Sync>>,
    /// The ancestor calls of a child agent's run (empty at the root).
    path: Arc<[CallSite]>,
    /// The step of the run whose calls this scope makes.
    step: usize,
    /// The number of the session's root run (see `RunState::runs`).
    run: u64,
}

/// Typed values of one session (a conversation): the user's id, their
/// credentials, a per-user client. One value per type; set with
/// `hookwire::agent::Runner::with_session_value`,
/// read by tools and hooks with [`ToolContext::session`]. Child agents
/// called in the session see the same values.
///
/// They are not part of the exported `hookwire::agent::RunState`:
/// the caller sets them again for each session it resumes.
#[derive(Clone, Default)]
pub struct SessionValues {
    map: Option<Arc<SessionMap>>,
}

type SessionMap = std::collections::HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>;

impl SessionValues {
    /// The value of type `T`, if the session has one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map
            .as_ref()?
            .get(&std::any::TypeId::of::<T>())
            .and_then(|v| v.downcast_ref())
    }

    /// Sets the value of type `T`.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(self.map.get_or_insert_with(Arc::default))
            .insert(std::any::TypeId::of::<T>(), Arc::new(value));
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len())
    }

    /// Whether there is none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Debug for SessionValues {
    #[inline]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionValues")
            .field("len", &self.len())
            .finish()
    }
}

impl Default for CallScope {
    /// The empty scope (no agent name, no correlation id, no approver); every
    /// default scope shares one allocation.
    #[inline]
    fn default() -> Self {
        static EMPTY: LazyLock<CallScope> = LazyLock::new(|| CallScope {
            shared: Arc::new(Shared::default()),
        });
        EMPTY.clone()
    }
}

impl CallScope {
    /// A scope for `agent`.
    pub fn new(agent: impl Into<Arc<str>>) -> Self {
        Self {
            shared: Arc::new(Shared {
                agent: agent.into(),
                ..Shared::default()
            }),
        }
    }

    /// A run's scope, its fields set at once (no copy-on-write check per
    /// field): the agent, the correlation id, the approver and the run's
    /// channel (what the agent loop builds for each session).
    #[inline]
    pub fn for_run(
        agent: Arc<str>,
        correlation_id: Arc<str>,
        approver: Arc<dyn Approver>,
        channel: Arc<dyn RunChannel>,
    ) -> Self {
        Self {
            shared: Arc::new(Shared {
                agent,
                correlation_id,
                approver: Some(approver),
                channel: Some(channel),
                ..Shared::default()
            }),
        }
    }

    /// Sets the correlation id.
    pub fn with_correlation_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.set_correlation_id(id);
        self
    }

    /// Sets the approver.
    #[inline]
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.set_approver(Some(approver));
        self
    }

    /// The agent's name.
    #[inline]
    pub fn agent(&self) -> &str {
        &self.shared.agent
    }

    /// The run's correlation id.
    #[inline]
    pub fn correlation_id(&self) -> &str {
        &self.shared.correlation_id
    }

    /// Who answers `Decision::Ask`, if anyone.
    #[inline]
    pub fn approver(&self) -> Option<&Arc<dyn Approver>> {
        self.shared.approver.as_ref()
    }

    /// The ancestor calls of this run: empty for a root agent, the parent's
    /// call (and its parent's) for a child agent's run.
    #[inline]
    pub fn path(&self) -> &[CallSite] {
        &self.shared.path
    }

    /// The step of the run whose calls this scope makes (0 outside a run).
    #[inline]
    pub fn step(&self) -> usize {
        self.shared.step
    }

    /// Where a call made in this scope is made: what its [`CallKey`](crate::approve::CallKey) names.
    #[inline]
    pub fn place(&self) -> CallPlace<'_> {
        CallPlace {
            session: self.correlation_id(),
            path: self.path(),
            agent: self.agent(),
            step: self.step(),
        }
    }

    /// The scoped name of this run's tool `tool` (see
    /// `hookwire::approval::Approvals::require`).
    #[inline]
    pub fn scoped_tool(&self, tool: &str) -> String {
        crate::approve::identity::scoped_name(
            self.path().iter().map(|s| s.agent.as_str()),
            self.agent(),
            tool,
        )
    }

    /// The site of call `id` made in this scope, as the calls of a child
    /// agent it runs name it.
    #[inline]
    pub fn site(&self, id: &str) -> CallSite {
        CallSite {
            agent: self.agent().to_owned(),
            step: self.step(),
            id: id.to_owned(),
        }
    }

    /// This scope for the calls of `step` (one copy of the shared fields
    /// when the step changes).
    #[inline]
    pub fn at_step(&self, step: usize) -> Self {
        let mut scope = self.clone();
        if scope.step() != step {
            scope.fields().step = step;
        }
        scope
    }

    /// The number of the session's root run these calls belong to (1 for
    /// the first; 0 outside a run).
    #[inline]
    pub fn run(&self) -> u64 {
        self.shared.run
    }

    /// Sets the number of the session's root run.
    #[inline]
    pub fn set_run(&mut self, run: u64) {
        if self.run() != run {
            self.fields().run = run;
        }
    }

    /// Sets the ancestor calls (a child agent's run).
    #[inline]
    pub fn set_path(&mut self, path: Arc<[CallSite]>) {
        self.fields().path = path;
    }

    /// The agent's name, shared.
    #[inline]
    pub fn agent_arc(&self) -> Arc<str> {
        self.shared.agent.clone()
    }

    /// The ancestor calls, shared.
    #[inline]
    pub fn path_arc(&self) -> Arc<[CallSite]> {
        self.shared.path.clone()
    }

    /// The run's channel, if the scope belongs to a run.
    #[inline]
    pub fn channel(&self) -> Option<&Arc<dyn RunChannel>> {
        self.shared.channel.as_ref()
    }

    /// Sets (or, with `None`, removes) the run's channel; nothing is
    /// copied when the same channel is set again.
    #[inline]
    pub fn set_channel(&mut self, channel: Option<Arc<dyn RunChannel>>) {
        let same = match (&self.shared.channel, &channel) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.fields().channel = channel;
        }
    }

    /// The run's own value (see [`set_host`](Self::set_host)), if any.
    #[inline]
    pub fn host(&self) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.shared.host.as_ref()
    }

    /// Sets (or removes) the run's own value: what the run that made this
    /// scope keeps for the runs its calls start (a child agent's), opaque
    /// to the chain. Nothing is copied when there is none and none is set.
    #[inline]
    pub fn set_host(&mut self, host: Option<Arc<dyn Any + Send + Sync>>) {
        if self.shared.host.is_some() || host.is_some() {
            self.fields().host = host;
        }
    }

    /// Where calls note what their tool received (the run's channel's).
    #[inline]
    pub fn call_log(&self) -> Option<&CallLog> {
        self.shared.channel.as_deref()?.call_log()
    }

    /// The session's typed values.
    #[inline]
    pub fn session(&self) -> &SessionValues {
        &self.shared.session
    }

    /// The session's typed values, for writing (as
    /// [`set_agent`](Self::set_agent)).
    #[inline]
    pub fn session_mut(&mut self) -> &mut SessionValues {
        &mut self.fields().session
    }

    /// Changes the agent's name (for this scope and the contexts made from it
    /// from now on; contexts made earlier keep theirs).
    pub fn set_agent(&mut self, agent: impl Into<Arc<str>>) {
        self.fields().agent = agent.into();
    }

    /// Changes the correlation id (as [`set_agent`](Self::set_agent)).
    pub fn set_correlation_id(&mut self, id: impl Into<Arc<str>>) {
        self.fields().correlation_id = id.into();
    }

    /// Changes or removes the approver (as [`set_agent`](Self::set_agent)).
    #[inline]
    pub fn set_approver(&mut self, approver: Option<Arc<dyn Approver>>) {
        self.fields().approver = approver;
    }

    /// The fields, for writing: copied first if another scope or context
    /// shares them.
    #[inline]
    fn fields(&mut self) -> &mut Shared {
        Arc::make_mut(&mut self.shared)
    }

    /// The context for one call of `tool`.
    #[inline(always)]
    pub fn context(
        &self,
        tool: CallStr,
        source: ToolSource,
        server: Option<Arc<str>>,
        tool_use_id: CallStr,
    ) -> ToolContext {
        ToolContext::scoped(tool, source, tool_use_id, self.clone(), server)
    }

    /// [`context`](Self::context) for a tool that declares metadata
    /// ([`Tool::META`](crate::Tool::META)): built with it in place, as the
    /// generated tool sets do on every call (no second move of the context).
    #[inline(always)]
    pub fn context_with_meta(
        &self,
        tool: CallStr,
        source: ToolSource,
        server: Option<Arc<str>>,
        tool_use_id: CallStr,
        meta: crate::ToolMeta,
    ) -> ToolContext {
        ToolContext::scoped_with_meta(tool, source, tool_use_id, self.clone(), server, meta)
    }
}

impl std::fmt::Debug for CallScope {
    #[inline]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallScope")
            .field("agent", &self.agent())
            .field("correlation_id", &self.correlation_id())
            .field("approver", &self.approver().is_some())
            .field("session", &self.session())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approve::FnApprover;
    use crate::decision::ApprovalDecision;

    #[test]
    fn contexts_share_the_scope_and_keep_what_it_was_when_made() {
        let mut scope = CallScope::new("planner").with_correlation_id("run-1");
        let first = scope.context("t".into(), ToolSource::Function, None, "c1".into());
        assert_eq!(
            (
                first.agent(),
                first.correlation_id(),
                first.approver().is_some()
            ),
            ("planner", "run-1", false)
        );

        // Changing the scope copies its fields; the earlier context keeps its own.
        scope.set_correlation_id("run-2");
        scope.set_approver(Some(Arc::new(FnApprover::new(|_| {
            ApprovalDecision::Approve
        }))));
        let second = scope.context("t".into(), ToolSource::Function, None, "c2".into());
        assert_eq!(first.correlation_id(), "run-1");
        assert!(first.approver().is_none());
        assert_eq!(second.correlation_id(), "run-2");
        assert!(second.approver().is_some());
        assert_eq!(second.scope().agent(), "planner");

        // A context made by hand starts from the empty scope and can be
        // given a name without touching any other context.
        let bare = ToolContext::new("t", ToolSource::Function, "c3");
        let named = ToolContext::new("t", ToolSource::Function, "c4").with_agent("a".into());
        assert_eq!((bare.agent(), named.agent()), ("", "a"));
        assert_eq!(CallScope::default().agent(), "");
    }
}
