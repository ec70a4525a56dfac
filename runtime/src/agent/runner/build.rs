//! Building a [`Runner`]: its correlation id, its builders (hooks,
//! approvals, limits, session values, history) and its accessors.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::conversation::Conversation;
use super::{LinkExt, RunSettings, Runner, SessionLink, StateSeal};
use crate::agent::decl::Agent;
use crate::agent::inject::Clock;
use crate::agent::lifecycle::LifecycleHooks;
use crate::approval::Approvals;
use crate::lock;
use crate::model::{Message, Model};
use crate::scope::CallScope;

/// A fresh correlation id: 64 random bits (from the standard library's
/// per-instance random hash keys, mixed with the clock's nanoseconds), so
/// that no counter is shared between sessions.
fn fresh_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    // The low 64 bits of the time are what differs between two sessions
    // (one round of the hash, not two).
    h.write_u64(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    );
    h.finish()
}

/// `<agent>-<id as 16 hex digits>`: a new session's correlation id, written
/// without the formatting machinery (which cost a tenth of an answer-only
/// session).
fn correlation_id(agent: &str, id: u64) -> Arc<str> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    /// `-` and the 16 hex digits of `id`, into `tail` (17 bytes).
    fn write_tail(tail: &mut [u8], id: u64) {
        tail[0] = b'-';
        for (i, digit) in tail[1..].iter_mut().enumerate() {
            *digit = HEX[((id >> ((15 - i) * 4)) & 0xf) as usize];
        }
    }
    // Written in place when the name is short: one allocation, the `Arc`,
    // and the text checked once.
    let mut buf = [0u8; 96];
    match buf.get_mut(..agent.len() + 17) {
        Some(out) => {
            out[..agent.len()].copy_from_slice(agent.as_bytes());
            write_tail(&mut out[agent.len()..], id);
            Arc::from(std::str::from_utf8(out).unwrap_or_default())
        }
        None => {
            let mut tail = [0u8; 17];
            write_tail(&mut tail, id);
            Arc::from([agent, std::str::from_utf8(&tail).unwrap_or_default()].concat())
        }
    }
}

/// `model` as the runner holds it: an `Arc<dyn Model>` is shared as it is,
/// any other model is put in one.
#[inline]
fn share<M: Model + 'static>(model: M) -> Arc<dyn Model> {
    match (&model as &dyn std::any::Any).downcast_ref::<Arc<dyn Model>>() {
        Some(shared) => Arc::clone(shared),
        None => Arc::new(model),
    }
}

impl<A: Agent> Runner<A, ()> {
    /// A runner for `agent` asking `model`, with no extra hooks and no
    /// approver (calls that need approval are denied).
    ///
    /// `model` is any [`Model`]: a value (`ScriptedModel`, `OpenAiModel`),
    /// or one already shared, such as the `Arc<dyn Model>` that
    /// [`from_spec`](crate::model::from_spec) and
    /// [`AgentConfig::load_model`](crate::agent::AgentConfig::load_model)
    /// return, which the runner shares as it is (no second `Arc`).
    ///
    /// ```
    /// # use hookwire::prelude::*;
    /// # #[hookwire::agent(name = "a")] struct A;
    /// let model = hookwire::model::from_spec("passthrough", None)?;
    /// let runner = Runner::new(A::new(), model);
    /// # let _ = runner;
    /// # Ok::<(), hookwire::model::ModelError>(())
    /// ```
    pub fn new(agent: A, model: impl Model + 'static) -> Self {
        let model = share(model);
        let name: Arc<str> = Arc::from(&*agent.config().name);
        let id = fresh_id();
        let mut settings = RunSettings::default();
        if let Some(n) = agent.config().max_parallel {
            settings.max_parallel = n.max(1);
        }
        // One block holds the approvals, the approver, the call log and the
        // child-agent maps: one allocation for them all.
        let session = Arc::new(SessionLink::default());
        let approvals = Approvals::in_host(session.clone());
        let scope = CallScope::for_run(
            name.clone(),
            correlation_id(&name, id),
            approvals.approver(),
            session.clone(),
        );
        Self {
            agent,
            model,
            hooks: (),
            scope,
            session,
            settings,
            clock: None,
            conv: Conversation::new(approvals),
            unavailable: Vec::new(),
            names_checked: 0,
            state_seal: None,
        }
    }
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Adds lifecycle hooks, run after the agent's own hooks. A hook with a
    /// failure policy or a timeout is a
    /// [`LifecycleGuard`](crate::agent::lifecycle::LifecycleGuard):
    /// `with_hooks(LifecycleGuard::new(Audit).with_timeout(..))`.
    pub fn with_hooks<H2: LifecycleHooks>(self, hooks: H2) -> Runner<A, H2> {
        Runner {
            agent: self.agent,
            model: self.model,
            hooks,
            scope: self.scope,
            session: self.session,
            settings: self.settings,
            clock: self.clock,
            conv: self.conv,
            unavailable: self.unavailable,
            names_checked: self.names_checked,
            state_seal: self.state_seal,
        }
    }

    /// Uses these approvals for every call that needs approval: the
    /// approver they ask, and their state (settings, sticky decisions,
    /// waiting calls), which is shared with the caller's clones (and so
    /// with another runner given a clone). The runner's own approvals are
    /// replaced, state and all.
    ///
    /// ```
    /// # use hookwire::agent::{AgentConfig, Agent, Runner};
    /// # use hookwire::model::PassthroughModel;
    /// # use hookwire::Router;
    /// # struct Shop { config: AgentConfig, tools: Router }
    /// # impl Agent for Shop {
    /// #     type Tools = Router;
    /// #     fn config(&self) -> &AgentConfig { &self.config }
    /// #     fn tools(&self) -> &Router { &self.tools }
    /// # }
    /// # let shop = Shop { config: AgentConfig::new("shop"), tools: Router::new() };
    /// use hookwire::approval::{ApprovalDecision, Approvals, FnApprover};
    /// let approver = FnApprover::new(|req| match req.tool {
    ///     "refund" => ApprovalDecision::Defer,
    ///     _ => ApprovalDecision::AlwaysApprove,
    /// });
    /// let runner = Runner::new(shop, PassthroughModel::new())
    ///     .with_approvals(Approvals::new(approver));
    /// assert!(runner.approvals().has_approver());
    /// ```
    pub fn with_approvals(mut self, approvals: Approvals) -> Self {
        if let Some(seal) = &self.state_seal {
            approvals.keep_spent_in(seal.spent().clone());
        }
        self.scope.set_approver(Some(approvals.approver()));
        self.conv.approvals = approvals;
        self
    }

    /// Seals the states this runner exports with `seal`'s key, and imports
    /// only states sealed with it; the decisions its runs use are recorded
    /// in `seal`'s record, so that a state holding one is refused (a
    /// decided state resumes once). Without a seal a runner imports no
    /// state ([`StateError::NoSeal`](super::StateError::NoSeal)).
    ///
    /// ```
    /// # use hookwire::agent::{AgentConfig, Agent, Runner, StateKey, StateSeal};
    /// # use hookwire::model::PassthroughModel;
    /// # use hookwire::Router;
    /// # struct Shop { config: AgentConfig, tools: Router }
    /// # impl Agent for Shop {
    /// #     type Tools = Router;
    /// #     fn config(&self) -> &AgentConfig { &self.config }
    /// #     fn tools(&self) -> &Router { &self.tools }
    /// # }
    /// # let shop = || Shop { config: AgentConfig::new("shop"), tools: Router::new() };
    /// let seal = StateSeal::new(StateKey::new(*b"0123456789abcdef0123456789abcdef")?);
    /// let first = Runner::new(shop(), PassthroughModel::new()).with_state_seal(seal.clone());
    /// let state = first.export_state();
    /// assert!(state.seal.is_some());
    /// let mut second = Runner::new(shop(), PassthroughModel::new()).with_state_seal(seal);
    /// second.import_state(state)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_state_seal(mut self, seal: StateSeal) -> Self {
        self.conv.approvals.keep_spent_in(seal.spent().clone());
        self.state_seal = Some(Arc::new(seal));
        self
    }

    /// Takes what a child's session inherits from the call `cx` that runs
    /// it: its place in the run tree (the parent's call is the last of its
    /// path), the session values, and the approvals. Inside a parent run the
    /// child shares the parent's [`Approvals`] (their settings, sticky
    /// decisions and pending calls, scoped by path); outside one, its
    /// chains consult the call's approver.
    pub(crate) fn inherit_scope(
        &mut self,
        cx: &crate::context::ToolContext,
        parent: Option<Approvals>,
    ) {
        let scope = cx.scope();
        let path: Arc<[crate::approval::CallSite]> = scope
            .path()
            .iter()
            .cloned()
            .chain([scope.site(cx.tool_use_id())])
            .collect();
        self.scope.set_path(path);
        self.scope.set_run(scope.run());
        *self.scope.session_mut() = scope.session().clone();
        // The child's events go where its parent's do, and its model calls
        // count against its parent's usage limit.
        self.scope.set_run_link(
            &self.session,
            scope.events().cloned(),
            scope.budget().cloned(),
        );
        match parent {
            Some(approvals) => {
                self.scope.set_approver(Some(approvals.approver()));
                self.conv.approvals = approvals;
            }
            None => {
                if let Some(approver) = scope.approver() {
                    self.scope.set_approver(Some(approver.clone()));
                }
            }
        }
    }

    /// Drops what waits in this run and below it (pending calls, unused
    /// decisions, paused child runs): a run that starts, or a step that
    /// ended, leaves nothing a later call could be taken for.
    pub(super) fn forget_waiting(&mut self) {
        self.conv.approvals.forget_within(&self.scope);
        lock(&self.session.paused).clear();
    }

    /// Sets a typed value of this session (the user's id, their
    /// credentials): tools and hooks read it with
    /// [`ToolContext::session`](crate::ToolContext::session), child agents
    /// called in the session too. One value per type. Not exported with the
    /// state.
    pub fn with_session_value<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.scope.session_mut().insert(value);
        self
    }

    /// Sets the limits.
    pub fn with_settings(mut self, settings: RunSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Sets the step limit.
    pub fn with_max_steps(mut self, max_steps: usize) -> Self {
        self.settings.max_steps = max_steps;
        self
    }

    /// Sets how many tool calls of one step run at once.
    pub fn with_max_parallel(mut self, max_parallel: usize) -> Self {
        self.settings.max_parallel = max_parallel.max(1);
        self
    }

    /// Limits how long one tool call may take (see
    /// [`RunSettings::tool_call_timeout`]).
    pub fn with_tool_call_timeout(mut self, limit: Duration) -> Self {
        self.settings.tool_call_timeout = Some(limit);
        self
    }

    /// Sets how failed model calls are retried (see
    /// [`RunSettings::model_retry`]).
    pub fn with_model_retry(mut self, policy: crate::hooks::RetryPolicy) -> Self {
        self.settings.model_retry = policy;
        self
    }

    /// Limits the tokens the run (with the child agents it calls) may use
    /// (see [`RunSettings::usage_limit`]).
    pub fn with_usage_limit(mut self, tokens: u64) -> Self {
        self.settings.usage_limit = Some(tokens);
        self
    }

    /// Sets the correlation id.
    pub fn with_correlation_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.scope.set_correlation_id(id);
        self
    }

    /// Sets the clock (for TTL injections).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Starts from this history.
    pub fn with_history(mut self, history: Vec<Message>) -> Self {
        self.conv.history = Arc::new(history);
        self
    }

    /// The history.
    pub fn history(&self) -> &[Message] {
        &self.conv.history
    }

    /// The history, mutably.
    pub fn history_mut(&mut self) -> &mut Vec<Message> {
        Arc::make_mut(&mut self.conv.history)
    }

    /// The approvals (clone it to resolve pending calls).
    pub fn approvals(&self) -> &Approvals {
        &self.conv.approvals
    }

    /// The agent.
    pub fn agent(&self) -> &A {
        &self.agent
    }

    /// The correlation id.
    pub fn correlation_id(&self) -> &str {
        self.scope.correlation_id()
    }

    /// The histories this session keeps for its child agents
    /// (`history_merge_target: child`), by tool name.
    pub fn child_histories(&self) -> BTreeMap<String, Vec<Message>> {
        lock(&self.session.children).clone()
    }

    /// Whether the run is paused for approval.
    pub fn is_paused(&self) -> bool {
        self.conv.pending.is_some()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::model::{Model, PassthroughModel};

    #[test]
    fn a_shared_model_is_held_as_it_is_and_any_other_is_put_in_one_arc() {
        let shared: Arc<dyn Model> = Arc::new(PassthroughModel);
        assert!(Arc::ptr_eq(&super::share(shared.clone()), &shared));
        // A value is wrapped once: the runner asks it, not an `Arc` of it.
        let held = super::share(PassthroughModel);
        assert_eq!(Arc::strong_count(&held), 1);
        assert_eq!(held.provider(), PassthroughModel.provider());
    }

    #[test]
    fn a_correlation_id_is_the_agent_and_sixteen_hex_digits() {
        assert_eq!(&*super::correlation_id("pmo", 0xab), "pmo-00000000000000ab");
        assert_eq!(
            *super::correlation_id("a", u64::MAX),
            format!("a-{:016x}", u64::MAX)
        );
        assert_eq!(
            *super::correlation_id("x", 0x0123_4567_89ab_cdef),
            format!("x-{:016x}", 0x0123_4567_89ab_cdef_u64)
        );
        // A name too long for the in-place buffer is written as well.
        let long = "n".repeat(200);
        assert_eq!(
            *super::correlation_id(&long, 1),
            format!("{long}-{:016x}", 1)
        );
        let edge = "e".repeat(79);
        assert_eq!(
            *super::correlation_id(&edge, 2),
            format!("{edge}-{:016x}", 2)
        );
    }
}
