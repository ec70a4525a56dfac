//! Tool sets: dispatch a call by name to the right chain.

use std::borrow::Cow;
use std::future::Future;
use std::sync::{Arc, LazyLock};

use crate::approval::identity::CallPlace;
use crate::approval::{Approver, CallSite};
use crate::call::{Outcome, ToolCall, ToolResult, into_result};
use crate::context::{ToolContext, ToolSource};
use crate::declare::ToolDecl;
use crate::error::ToolError;
use crate::hook::{CatchRoot, Handler};
use crate::tool::{Tool, ToolDefinition};

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
    /// The session's shared block, whose call log the calls note in.
    log: Option<Arc<crate::approval::SessionBlock>>,
    /// The ancestor calls of a child agent's run (empty at the root).
    path: Arc<[CallSite]>,
    /// The step of the run whose calls this scope makes.
    step: usize,
    /// The number of the session's root run (see `RunState::runs`).
    run: u64,
    /// Where the run's live events go, when someone streams it
    /// ([`Runner::stream`](crate::agent::Runner::stream)).
    events: Option<crate::agent::EventTx>,
    /// The usage limit of the run (and of the run that called it, for a
    /// child agent's run), when it has one.
    budget: Option<Arc<crate::agent::Budget>>,
}

/// Where the calls of a run note what their tool received and the approval
/// gates they passed, for the run's trace: set by the agent loop on its scope; `None` elsewhere, so that a
/// call outside a run notes nothing (one branch per call, in the tool's
/// handler).
#[derive(Default)]
pub(crate) struct CallLog {
    /// By call id: the calls of a session in flight, few at a time (each
    /// call's entry is taken when it ends), so a list searched in order,
    /// with room for one inline (no hashing, no allocation for a step with
    /// one call).
    calls: std::sync::Mutex<OpenCalls>,
}

/// The calls of a [`CallLog`] in flight, by id.
type OpenCalls = smallvec::SmallVec<[(Arc<str>, CallNotes); 1]>;

/// What one call of a run noted for its trace record.
#[derive(Default)]
pub(crate) struct CallNotes {
    /// The arguments its tool received (after every hook's rewrites), if
    /// the tool ran and they are not the ones the model sent.
    pub(crate) received: Option<crate::call::ToolArgs>,
    /// Who the arguments the model sent are
    /// ([`ToolArgs::shared_identity`](crate::call::ToolArgs)): a tool that
    /// receives them unchanged notes nothing.
    sent: Option<usize>,
    /// The approval gates it passed, outermost first.
    pub(crate) approvals: Vec<crate::approval::ApprovalNote>,
    /// The progress messages its tool sent ([`ToolContext::progress`]), in
    /// order.
    pub(crate) progress: Vec<String>,
}

impl CallLog {
    /// Opens the entry of call `id`, whose model sent `sent` (the loop
    /// does, before the call runs, so that its notes share the call's id
    /// instead of copying it, and arguments its tool receives unchanged
    /// are not kept twice).
    pub(crate) fn open(&self, id: &Arc<str>, sent: &crate::call::ToolArgs) {
        let mut calls = crate::lock(&self.calls);
        let sent = sent.shared_identity();
        match calls.iter_mut().find(|(open, _)| same_id(open, id)) {
            Some((_, notes)) => notes.sent = sent,
            None => calls.push((
                id.clone(),
                CallNotes {
                    sent,
                    ..CallNotes::default()
                },
            )),
        }
    }

    /// The notes of call `id`, opened if needed.
    fn with<R>(&self, id: &str, note: impl FnOnce(&mut CallNotes) -> R) -> R {
        let mut calls = crate::lock(&self.calls);
        let at = match calls.iter().position(|(open, _)| same_id(open, id)) {
            Some(at) => at,
            None => {
                calls.push((Arc::from(id), CallNotes::default()));
                calls.len() - 1
            }
        };
        note(&mut calls[at].1)
    }

    /// Notes the arguments the tool of call `id` received (after every
    /// hook's rewrites): a clone, which shares them.
    pub(crate) fn received(&self, id: &str, args: &crate::call::ToolArgs) {
        self.with(id, |notes| {
            notes.received = match args.shared_identity() {
                Some(same) if notes.sent == Some(same) => None,
                _ => Some(args.clone()),
            }
        });
    }

    /// Notes an approval gate call `id` passed.
    pub(crate) fn approval(&self, id: &str, note: crate::approval::ApprovalNote) {
        self.with(id, |notes| notes.approvals.push(note));
    }

    /// Notes a progress message of call `id`.
    pub(crate) fn progress(&self, id: &str, message: String) {
        self.with(id, |notes| notes.progress.push(message));
    }

    /// Takes what call `id` noted, and closes its entry.
    pub(crate) fn take(&self, id: &str) -> CallNotes {
        let mut calls = crate::lock(&self.calls);
        match calls.iter().position(|(open, _)| same_id(open, id)) {
            Some(at) => calls.swap_remove(at).1,
            None => CallNotes::default(),
        }
    }
}

/// Whether `open` is the id `id`: the same shared text (a context's id is
/// the call's), or an equal one.
fn same_id(open: &str, id: &str) -> bool {
    std::ptr::eq(open, id) || open == id
}

/// Typed values of one session (a conversation): the user's id, their
/// credentials, a per-user client. One value per type; set with
/// [`Runner::with_session_value`](crate::agent::Runner::with_session_value),
/// read by tools and hooks with [`ToolContext::session`]. Child agents
/// called in the session see the same values.
///
/// They are not part of the exported [`RunState`](crate::agent::RunState):
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
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len())
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Debug for SessionValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionValues")
            .field("len", &self.len())
            .finish()
    }
}

impl Default for CallScope {
    /// The empty scope (no agent name, no correlation id, no approver); every
    /// default scope shares one allocation.
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

    /// A new session's scope, its fields set at once (no copy-on-write
    /// check per field): the agent, the correlation id, the approver and
    /// the shared block whose call log the calls note in.
    pub(crate) fn for_session(
        agent: Arc<str>,
        correlation_id: Arc<str>,
        approver: Arc<dyn Approver>,
        block: Arc<crate::approval::SessionBlock>,
    ) -> Self {
        Self {
            shared: Arc::new(Shared {
                agent,
                correlation_id,
                approver: Some(approver),
                log: Some(block),
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
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.set_approver(Some(approver));
        self
    }

    /// The agent's name.
    pub fn agent(&self) -> &str {
        &self.shared.agent
    }

    /// The run's correlation id.
    pub fn correlation_id(&self) -> &str {
        &self.shared.correlation_id
    }

    /// Who answers `Decision::Ask`, if anyone.
    pub fn approver(&self) -> Option<&Arc<dyn Approver>> {
        self.shared.approver.as_ref()
    }

    /// The ancestor calls of this run: empty for a root agent, the parent's
    /// call (and its parent's) for a child agent's run.
    pub fn path(&self) -> &[CallSite] {
        &self.shared.path
    }

    /// The step of the run whose calls this scope makes (0 outside a run).
    pub fn step(&self) -> usize {
        self.shared.step
    }

    /// Where a call made in this scope is made: what its [`CallKey`](crate::approval::CallKey) names.
    pub(crate) fn place(&self) -> CallPlace<'_> {
        CallPlace {
            session: self.correlation_id(),
            path: self.path(),
            agent: self.agent(),
            step: self.step(),
        }
    }

    /// The scoped name of this run's tool `tool` (see
    /// [`Approvals::require`](crate::approval::Approvals::require)).
    pub(crate) fn scoped_tool(&self, tool: &str) -> String {
        crate::approval::identity::scoped_name(
            self.path().iter().map(|s| s.agent.as_str()),
            self.agent(),
            tool,
        )
    }

    /// The site of call `id` made in this scope, as the calls of a child
    /// agent it runs name it.
    pub(crate) fn site(&self, id: &str) -> CallSite {
        CallSite {
            agent: self.agent().to_owned(),
            step: self.step(),
            id: id.to_owned(),
        }
    }

    /// This scope for the calls of `step` (one copy of the shared fields
    /// when the step changes).
    pub(crate) fn at_step(&self, step: usize) -> Self {
        let mut scope = self.clone();
        if scope.step() != step {
            scope.fields().step = step;
        }
        scope
    }

    /// The number of the session's root run these calls belong to (1 for
    /// the first; 0 outside a run).
    pub(crate) fn run(&self) -> u64 {
        self.shared.run
    }

    /// Sets the number of the session's root run.
    pub(crate) fn set_run(&mut self, run: u64) {
        if self.run() != run {
            self.fields().run = run;
        }
    }

    /// Sets the ancestor calls (a child agent's run).
    pub(crate) fn set_path(&mut self, path: Arc<[CallSite]>) {
        self.fields().path = path;
    }

    /// The agent's name, shared.
    pub(crate) fn agent_arc(&self) -> Arc<str> {
        self.shared.agent.clone()
    }

    /// The ancestor calls, shared.
    pub(crate) fn path_arc(&self) -> Arc<[CallSite]> {
        self.shared.path.clone()
    }

    /// Where the run's live events go, if someone streams it.
    pub(crate) fn events(&self) -> Option<&crate::agent::EventTx> {
        self.shared.events.as_ref()
    }

    /// Sets (or, with `None`, removes) where the run's live events go;
    /// nothing is copied when there is none and none is set.
    pub(crate) fn set_events(&mut self, events: Option<crate::agent::EventTx>) {
        if self.shared.events.is_some() || events.is_some() {
            self.fields().events = events;
        }
    }

    /// The run's usage limit, if it has one.
    pub(crate) fn budget(&self) -> Option<&Arc<crate::agent::Budget>> {
        self.shared.budget.as_ref()
    }

    /// Sets (or removes) the run's usage limit; nothing is copied when
    /// there is none and none is set.
    pub(crate) fn set_budget(&mut self, budget: Option<Arc<crate::agent::Budget>>) {
        if self.shared.budget.is_some() || budget.is_some() {
            self.fields().budget = budget;
        }
    }

    /// Sends the live event `kind()` makes, when someone streams the run;
    /// otherwise `kind` is not called.
    pub(crate) fn emit(&self, kind: impl FnOnce() -> crate::agent::EventKind) {
        if let Some(tx) = &self.shared.events {
            let _ = tx.send(crate::agent::RunEvent {
                agent: self.agent_arc(),
                path: self.path_arc(),
                kind: kind(),
            });
        }
    }

    /// Where calls note what their tool received (set by the agent loop).
    pub(crate) fn call_log(&self) -> Option<&CallLog> {
        self.shared.log.as_deref().map(|block| &block.log)
    }

    /// The session's typed values.
    pub fn session(&self) -> &SessionValues {
        &self.shared.session
    }

    /// The session's typed values, for writing (as
    /// [`set_agent`](Self::set_agent)).
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
    pub fn set_approver(&mut self, approver: Option<Arc<dyn Approver>>) {
        self.fields().approver = approver;
    }

    /// The fields, for writing: copied first if another scope or context
    /// shares them.
    fn fields(&mut self) -> &mut Shared {
        Arc::make_mut(&mut self.shared)
    }

    /// The context for one call of `tool`.
    #[inline(always)]
    pub fn context(
        &self,
        tool: Cow<'static, str>,
        source: ToolSource,
        server: Option<Arc<str>>,
        tool_use_id: Arc<str>,
    ) -> ToolContext {
        ToolContext::scoped(tool.into(), source, tool_use_id, self.clone(), server)
    }

    /// [`context`](Self::context) for a tool named by the call itself (a
    /// route, an MCP or run-time tool): the context shares the call's name
    /// instead of copying it.
    pub(crate) fn context_shared(
        &self,
        tool: Arc<str>,
        source: ToolSource,
        server: Option<Arc<str>>,
        tool_use_id: Arc<str>,
    ) -> ToolContext {
        ToolContext::scoped(
            crate::context::ToolName::Shared(tool),
            source,
            tool_use_id,
            self.clone(),
            server,
        )
    }

    /// [`context`](Self::context) for a tool that declares metadata
    /// ([`Tool::META`](crate::Tool::META)): built with it in place, as the
    /// generated tool sets do on every call (no second move of the context).
    #[inline(always)]
    pub fn context_with_meta(
        &self,
        tool: Cow<'static, str>,
        source: ToolSource,
        server: Option<Arc<str>>,
        tool_use_id: Arc<str>,
        meta: crate::ToolMeta,
    ) -> ToolContext {
        ToolContext::scoped_with_meta(tool.into(), source, tool_use_id, self.clone(), server, meta)
    }
}

impl std::fmt::Debug for CallScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallScope")
            .field("agent", &self.agent())
            .field("correlation_id", &self.correlation_id())
            .field("approver", &self.approver().is_some())
            .field("session", &self.session())
            .finish()
    }
}

/// A set of tools, each behind its chain: what an agent offers the model.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool set",
    note = "tool sets are generated by `#[hookwire::agent]` and `cardgen`, or built with `hookwire::Router`"
)]
pub trait ToolSet: Send + Sync {
    /// Every tool's definition, in declared order.
    fn definitions(&self) -> Vec<ToolDefinition>;

    /// The same definitions, shared: what the agent loop offers the model
    /// on every run. A tool set whose tools are fixed when it is built
    /// makes them once and hands out the one `Arc` (generated tool sets and
    /// [`Router`] do), so a run copies no schema; the default makes them
    /// from [`definitions`](Self::definitions) on each call, as a tool set
    /// whose tools change at run time (an MCP server's) must.
    fn shared_definitions(&self) -> Arc<[ToolDefinition]> {
        self.definitions().into()
    }

    /// Where the tool of this name comes from, `None` when there is no
    /// such tool: what the loop tells lifecycle hooks, matchers and the
    /// trace before it dispatches the call (the source dispatch itself
    /// uses, never one guessed from the name).
    fn source(&self, name: &str) -> Option<ToolSource>;

    /// The metadata the tool of this name declares
    /// ([`Tool::META`](crate::Tool::META), an MCP tool's annotations): what
    /// the loop gives lifecycle hooks' `meta:` matchers. None by default.
    fn meta(&self, name: &str) -> crate::ToolMeta {
        let _ = name;
        crate::ToolMeta::EMPTY
    }

    /// What the loop's approval gate knows of the tool of this name
    /// ([`ToolView`](crate::ToolView): the metadata its
    /// approver is shown, the type edited arguments must fit). `None` (the
    /// default) shows no metadata and refuses edited arguments at that
    /// gate. Generated tool sets, [`Router`] and MCP tool sets answer for
    /// every tool they have.
    fn tool_view(&self, name: &str) -> Option<crate::ToolView> {
        let _ = name;
        None
    }

    /// What the set's tools say about one step of a run: which of
    /// `definitions` (the set's own) are not offered, and what each offered
    /// tool adds to the system prompt. The default asks each tool's
    /// [`ToolView`](crate::ToolView) ([`Tool::available`](crate::Tool::available),
    /// [`Tool::instruction`](crate::Tool::instruction)); a panic there
    /// hides the tool. A set-wide rule or instruction overrides it
    /// ([`Router::available_when`], [`Router::with_instruction`]).
    fn step_offer(
        &self,
        definitions: &[ToolDefinition],
        step: &crate::StepView<'_>,
    ) -> crate::StepOffer {
        crate::StepOffer::of(definitions, |name| self.tool_view(name), step)
    }

    /// Whether a tool of this name exists.
    fn contains(&self, name: &str) -> bool {
        self.source(name).is_some()
    }

    /// Runs `call` through its tool's chain; an unknown name gives
    /// [`ToolError::UnknownTool`].
    ///
    /// The chain runs as the root of the call
    /// ([`catch_panics`](crate::catch_panics)): a panic inside it ends the
    /// call with an error, never the process. An implementation of your own
    /// must do the same.
    fn dispatch(&self, scope: &CallScope, call: ToolCall) -> impl Future<Output = Outcome> + Send;

    /// Runs `call` and returns what the model reads.
    fn call(&self, scope: &CallScope, call: ToolCall) -> impl Future<Output = ToolResult> + Send {
        async move { into_result(self.dispatch(scope, call).await) }
    }
}

/// A tool set built by hand from chains: `Router::new().route(..)`.
///
/// The `#[agent]` macro and `cardgen` generate a flat `match` instead; a
/// `Router` compares names one by one, which is fine for a handful of tools.
///
/// ```
/// # use hookwire::{CallScope, FnTool, Json, Router, ToolArgs, ToolCall, ToolSet};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct A { x: i64 }
/// # tokio_test_block_on(async {
/// let tools = Router::new().tool(FnTool::new("add_one", "Adds one.", |a: A| async move { Json(a.x + 1) }));
/// let call = ToolCall::new("call-1", "add_one", ToolArgs::from_json(r#"{"x": 41}"#));
/// let result = tools.call(&CallScope::new("demo"), call).await;
/// assert_eq!(result.text_content(), "42");
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Router<R = RouterEnd> {
    routes: R,
    /// The definitions, made once on first use and shared by every run.
    shared: std::sync::OnceLock<Arc<[ToolDefinition]>>,
    /// Its set-wide availability and instruction.
    rules: SetRules,
}

/// A tool set's own availability rule and instruction, besides its tools'.
#[derive(Debug, Clone, Default)]
struct SetRules {
    available: Option<fn(&crate::StepView<'_>) -> bool>,
    instruction: Option<Cow<'static, str>>,
}

/// The end of a [`Router`]'s list.
#[derive(Debug, Clone, Copy, Default)]
pub struct RouterEnd;

/// One route of a [`Router`]: a name, its chain, and the rest.
#[derive(Debug, Clone)]
pub struct RouterEntry<C, R> {
    definition: ToolDefinition,
    name: Cow<'static, str>,
    source: ToolSource,
    view: Option<crate::ToolView>,
    meta: crate::ToolMeta,
    chain: C,
    rest: R,
}

impl Router<RouterEnd> {
    /// An empty router.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<R: RouterList> Router<R> {
    /// Adds a route for `definition.name` through `chain`.
    pub fn route<C: Handler>(
        self,
        definition: ToolDefinition,
        source: ToolSource,
        chain: C,
    ) -> Router<RouterEntry<C, R>> {
        Router {
            routes: RouterEntry {
                name: Cow::Owned(definition.name.clone()),
                definition,
                source,
                view: chain.tool_view(),
                meta: crate::ToolMeta::EMPTY,
                chain,
                rest: self.routes,
            },
            shared: std::sync::OnceLock::new(),
            rules: self.rules,
        }
    }

    /// Offers the router's tools only in the steps `available` says yes
    /// to (besides each tool's own [`Tool::available`]): in the others
    /// none of them is offered or callable.
    ///
    /// ```
    /// # use hookwire::{FnTool, Json, NoArgs, Router, StepView};
    /// struct Admin;
    /// let admin = Router::new()
    ///     .tool(FnTool::new("reset", "Resets.", |_: NoArgs| async { Json(0) }))
    ///     .available_when(|step: &StepView<'_>| step.session::<Admin>().is_some())
    ///     .with_instruction("Reset only when the user asks twice.");
    /// # let _ = admin;
    /// ```
    pub fn available_when(mut self, available: fn(&crate::StepView<'_>) -> bool) -> Self {
        self.rules.available = Some(available);
        self
    }

    /// Adds `instruction` to the system prompt of every step in which the
    /// router's tools are offered, before its tools' own instructions.
    pub fn with_instruction(mut self, instruction: impl Into<Cow<'static, str>>) -> Self {
        self.rules.instruction = Some(instruction.into());
        self
    }

    /// Adds a tool, with no hooks of the router's own: a plain [`Tool`]
    /// runs through [`ToolHandler`](crate::ToolHandler), and a tool declared with
    /// `#[hookwire::tool(hooks = [..], needs_approval, on_error = ..)]` through
    /// its own chain ([`ToolDecl::Handler`]).
    pub fn tool<T: ToolDecl>(self, tool: T) -> Router<RouterEntry<T::Handler, R>> {
        let definition = tool.describe();
        let handler = tool.into_handler();
        let source = T::tool(&handler).source();
        let meta = T::tool(&handler).meta();
        let mut router = self.route(definition, source, handler);
        router.routes.meta = meta;
        router
    }
}

/// The list behind a [`Router`]; implemented by [`RouterEnd`] and [`RouterEntry`].
pub trait RouterList: Send + Sync {
    /// Appends the definitions, in the order the routes were added.
    fn collect(&self, out: &mut Vec<ToolDefinition>);
    /// The source of the route with this name, if there is one.
    fn source(&self, name: &str) -> Option<ToolSource>;
    /// The approval view of the route with this name, if it has one.
    fn tool_view(&self, name: &str) -> Option<crate::ToolView>;
    /// The metadata of the route with this name (its tool's
    /// [`Tool::meta`](crate::Tool::meta)); none by default.
    fn meta(&self, name: &str) -> crate::ToolMeta {
        let _ = name;
        crate::ToolMeta::EMPTY
    }
    /// Dispatches to the route named `call.name`.
    fn dispatch(&self, scope: &CallScope, call: ToolCall) -> impl Future<Output = Outcome> + Send;
}

impl RouterList for RouterEnd {
    fn collect(&self, _out: &mut Vec<ToolDefinition>) {}

    fn source(&self, _name: &str) -> Option<ToolSource> {
        None
    }

    fn tool_view(&self, _name: &str) -> Option<crate::ToolView> {
        None
    }

    async fn dispatch(&self, _scope: &CallScope, call: ToolCall) -> Outcome {
        Err(ToolError::UnknownTool {
            name: call.name.to_string(),
        })
    }
}

impl<C: Handler, R: RouterList> RouterList for RouterEntry<C, R> {
    fn collect(&self, out: &mut Vec<ToolDefinition>) {
        self.rest.collect(out);
        out.push(self.definition.clone());
    }

    fn source(&self, name: &str) -> Option<ToolSource> {
        if self.name == name {
            Some(self.source)
        } else {
            self.rest.source(name)
        }
    }

    fn tool_view(&self, name: &str) -> Option<crate::ToolView> {
        if self.name == name {
            self.view
        } else {
            self.rest.tool_view(name)
        }
    }

    fn meta(&self, name: &str) -> crate::ToolMeta {
        if self.name == name {
            self.meta.clone()
        } else {
            self.rest.meta(name)
        }
    }

    async fn dispatch(&self, scope: &CallScope, call: ToolCall) -> Outcome {
        if *call.name == *self.name {
            // A route named by a `&'static str` lends it to the context;
            // any other shares the call's name (no copy either way).
            let cx = match &self.name {
                Cow::Borrowed(name) => {
                    scope.context(Cow::Borrowed(name), self.source, None, call.id)
                }
                Cow::Owned(_) => scope.context_shared(call.name, self.source, None, call.id),
            };
            let mut cx = cx.with_meta(self.meta.clone());
            let future = self.chain.call(&mut cx, call.arguments);
            CatchRoot::new(future, &self.name).await
        } else {
            self.rest.dispatch(scope, call).await
        }
    }
}

impl<R: RouterList> ToolSet for Router<R> {
    fn definitions(&self) -> Vec<ToolDefinition> {
        let mut out = Vec::new();
        self.routes.collect(&mut out);
        out
    }

    fn shared_definitions(&self) -> Arc<[ToolDefinition]> {
        self.shared
            .get_or_init(|| self.definitions().into())
            .clone()
    }

    fn source(&self, name: &str) -> Option<ToolSource> {
        self.routes.source(name)
    }

    fn meta(&self, name: &str) -> crate::ToolMeta {
        self.routes.meta(name)
    }

    fn tool_view(&self, name: &str) -> Option<crate::ToolView> {
        self.routes.tool_view(name)
    }

    fn step_offer(
        &self,
        definitions: &[ToolDefinition],
        step: &crate::StepView<'_>,
    ) -> crate::StepOffer {
        let mut offer = crate::StepOffer::default();
        if let Some(available) = self.rules.available {
            let shown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| available(step)));
            if !matches!(shown, Ok(true)) {
                offer.unavailable = self
                    .shared_definitions()
                    .iter()
                    .map(|d| d.name.clone())
                    .collect();
                return offer;
            }
        }
        offer.instructions.extend(self.rules.instruction.clone());
        offer.merge(crate::StepOffer::of(
            definitions,
            |name| self.tool_view(name),
            step,
        ));
        offer
    }

    fn dispatch(&self, scope: &CallScope, call: ToolCall) -> impl Future<Output = Outcome> + Send {
        self.routes.dispatch(scope, call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::{ApprovalDecision, FnApprover};

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
