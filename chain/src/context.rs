//! Who is calling what: the context every hook and tool receives.

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::approve::Approver;
use crate::call::CallStr;
use crate::scope::CallScope;
pub use hookwire_spec::ToolSource;

/// The identity of one tool call plus a typed extension map, handed to every
/// hook (as `&mut`) and to the tool (as `&`).
///
/// An outer hook can put a value into [`extensions`](Self::extensions) before
/// calling `next`; every inner hook and the tool can read or change it; and
/// the outer hook reads it again after `next` returns. Creating a context
/// does not allocate: what the run shares is one [`CallScope`] (one
/// reference count), and the tool's name is borrowed or shared.
pub struct ToolContext {
    scope: CallScope,
    server: Option<Arc<str>>,
    tool: CallStr,
    source: ToolSource,
    tool_use_id: CallStr,
    extensions: Extensions,
    meta: crate::ToolMeta,
    function: Option<&'static str>,
}

impl ToolContext {
    /// A context for a call of `tool` (from `source`) with the given tool-use
    /// id. The agent name and correlation id start empty.
    pub fn new(
        tool: impl Into<Cow<'static, str>>,
        source: ToolSource,
        tool_use_id: impl Into<CallStr>,
    ) -> Self {
        Self {
            scope: CallScope::default(),
            server: None,
            tool: CallStr::from(tool.into()),
            source,
            tool_use_id: tool_use_id.into(),
            extensions: Extensions::new(),
            meta: crate::ToolMeta::EMPTY,
            function: None,
        }
    }

    /// A context with its whole identity at once: what a tool set builds for
    /// every call, without the placeholder names `new` starts with.
    #[inline(always)]
    #[doc(hidden)]
    pub fn scoped(
        tool: CallStr,
        source: ToolSource,
        tool_use_id: CallStr,
        scope: CallScope,
        server: Option<Arc<str>>,
    ) -> Self {
        Self::scoped_with_meta(
            tool,
            source,
            tool_use_id,
            scope,
            server,
            crate::ToolMeta::EMPTY,
        )
    }

    /// [`scoped`](Self::scoped) with the tool's metadata.
    #[inline(always)]
    #[doc(hidden)]
    pub fn scoped_with_meta(
        tool: CallStr,
        source: ToolSource,
        tool_use_id: CallStr,
        scope: CallScope,
        server: Option<Arc<str>>,
        meta: crate::ToolMeta,
    ) -> Self {
        Self {
            scope,
            server,
            tool,
            source,
            tool_use_id,
            extensions: Extensions::new(),
            meta,
            function: None,
        }
    }

    /// Sets the metadata the tool declares ([`Tool::META`](crate::Tool::META)).
    #[inline]
    pub fn with_meta(mut self, meta: crate::ToolMeta) -> Self {
        self.meta = meta;
        self
    }

    /// The metadata the tool declares: what `meta:` matchers read.
    #[inline]
    pub fn meta(&self) -> &crate::ToolMeta {
        &self.meta
    }

    /// Sets the agent's name.
    #[inline]
    pub fn with_agent(mut self, agent: Arc<str>) -> Self {
        self.scope.set_agent(agent);
        self
    }

    /// Sets the MCP server's name.
    #[inline]
    pub fn with_server(mut self, server: Option<Arc<str>>) -> Self {
        self.server = server;
        self
    }

    /// Sets the correlation id (shared by every call of one run).
    #[inline]
    pub fn with_correlation_id(mut self, id: Arc<str>) -> Self {
        self.scope.set_correlation_id(id);
        self
    }

    /// Sets the approver that `Decision::Ask` consults.
    #[inline]
    pub fn with_approver(mut self, approver: Option<Arc<dyn Approver>>) -> Self {
        self.scope.set_approver(approver);
        self
    }

    /// The agent making the call.
    #[inline]
    pub fn agent(&self) -> &str {
        self.scope.agent()
    }

    /// The MCP server the tool lives on, for MCP tools.
    #[inline]
    pub fn server(&self) -> Option<&str> {
        self.server.as_deref()
    }

    /// Where the tool runs, by the name hooks in other frameworks branch on
    /// (their `server_name`): the MCP server's name for an MCP tool,
    /// `"agent"` for a child agent, `"runtime"` for a tool registered at run
    /// time, `None` for a function tool, which runs in the process.
    ///
    /// ```
    /// # use hookwire_chain::{ToolContext, ToolSource};
    /// let cx = ToolContext::new("agent__Child", ToolSource::Agent, "call-1");
    /// assert_eq!(cx.server_name(), Some("agent"));
    /// let cx = ToolContext::new("add_one", ToolSource::Function, "call-2");
    /// assert_eq!(cx.server_name(), None);
    /// let cx = ToolContext::new("bank__pay", ToolSource::Mcp, "call-3")
    ///     .with_server(Some("bank".into()));
    /// assert_eq!(cx.server_name(), Some("bank"));
    /// ```
    #[inline]
    pub fn server_name(&self) -> Option<&str> {
        match self.source {
            ToolSource::Mcp => self.server.as_deref().or(Some("mcp")),
            ToolSource::Agent => Some("agent"),
            ToolSource::Runtime => Some("runtime"),
            ToolSource::Function => None,
        }
    }

    /// The tool's name as the model called it.
    #[inline]
    pub fn tool(&self) -> &str {
        self.tool.as_str()
    }

    /// The tool's name if it is a `&'static str` (generated tool sets name
    /// tools this way): a copy that does not borrow the context.
    #[doc(hidden)]
    #[inline]
    pub fn static_tool(&self) -> Option<&'static str> {
        self.tool.as_static()
    }

    /// The function behind the tool, as its declaration names it
    /// ([`Tool::FUNCTION`](crate::Tool::FUNCTION)): its Rust path
    /// (`module::function`) for a `#[hookwire::tool]`, `tools.rs:refund`
    /// for a card's plain function; `None` for a tool without one (an MCP
    /// server's, a child agent, a hand-written `Tool`, a tool of a
    /// hand-built `Router`).
    #[inline]
    pub fn function(&self) -> Option<&'static str> {
        self.function
    }

    /// Sets [`function`](Self::function) (generated tool sets do, for
    /// each call of a function tool).
    #[doc(hidden)]
    #[inline]
    pub fn set_function(&mut self, function: Option<&'static str>) {
        self.function = function;
    }

    /// Where the tool comes from.
    #[inline]
    pub fn source(&self) -> ToolSource {
        self.source
    }

    /// The model's id for this call.
    #[inline]
    pub fn tool_use_id(&self) -> &str {
        &self.tool_use_id
    }

    /// A key for this call that a tool passes downstream (an HTTP API's
    /// `Idempotency-Key` header, a database's unique request id) to make
    /// its effect exactly-once there: 64 hex digits, a SHA-256 of the
    /// call's identity (the session's correlation id, the number of the
    /// session's run, the path of parent agent calls, the agent, the step,
    /// the tool and the call id).
    ///
    /// It is the same every time this call runs: in a durable session on a
    /// replay after a crash or a restart (everything in it is journaled or
    /// session state), and in memory for the call within its run (also
    /// when a paused run resumes, and across an exported and imported
    /// state, which keeps the run count). It differs between calls, runs
    /// and sessions. Outside a run (a context made by hand) it is made of
    /// what the context has.
    ///
    /// ```
    /// # use hookwire::{CallScope, ToolSource};
    /// let scope = CallScope::new("shop").with_correlation_id("s1");
    /// let a = scope.context("pay".into(), ToolSource::Function, None, "c1".into());
    /// let again = scope.context("pay".into(), ToolSource::Function, None, "c1".into());
    /// let b = scope.context("pay".into(), ToolSource::Function, None, "c2".into());
    /// assert_eq!(a.idempotency_key(), again.idempotency_key());
    /// assert_ne!(a.idempotency_key(), b.idempotency_key());
    /// assert_eq!(a.idempotency_key().len(), 64);
    /// ```
    #[inline]
    pub fn idempotency_key(&self) -> String {
        crate::approve::identity::idempotency_key(
            &self.scope.place(),
            self.scope.run(),
            self.tool.as_str(),
            &self.tool_use_id,
        )
    }

    /// The session's value of type `T` (the user's id, their credentials),
    /// set with `hookwire::agent::Runner::with_session_value`.
    ///
    /// ```
    /// # use hookwire::{CallScope, ToolSource};
    /// struct UserId(String);
    /// let mut scope = CallScope::new("shop");
    /// scope.session_mut().insert(UserId("alice".into()));
    /// let cx = scope.context("buy".into(), ToolSource::Function, None, "c1".into());
    /// assert_eq!(cx.session::<UserId>().map(|u| u.0.as_str()), Some("alice"));
    /// ```
    pub fn session<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.scope.session().get()
    }

    /// The id shared by every call of one run.
    #[inline]
    pub fn correlation_id(&self) -> &str {
        self.scope.correlation_id()
    }

    /// The approver, if one is configured.
    #[inline]
    pub fn approver(&self) -> Option<&Arc<dyn Approver>> {
        self.scope.approver()
    }

    /// What the call shares with the other calls of its run (agent,
    /// correlation id, approver): for a hook that makes calls of its own in
    /// the same run.
    #[inline]
    pub fn scope(&self) -> &CallScope {
        &self.scope
    }

    /// Reports progress while the tool runs: the message goes to the
    /// run's trace (a `hookwire::agent::TraceEvent::Progress`
    /// before the call's own event), to the run's event stream as it is
    /// sent when someone streams the run (an
    /// `hookwire::agent::EventKind::Progress`), and to
    /// `tracing` (target `hookwire::progress`, fields `agent`,
    /// `tool`, `tool_use_id` and `progress`), never to the model. Outside a run only the `tracing` event is emitted.
    ///
    /// ```
    /// /// Copies a folder.
    /// #[hookwire::tool]
    /// async fn copy(cx: &hookwire::ToolContext, files: Vec<String>) -> String {
    ///     for (n, file) in files.iter().enumerate() {
    ///         cx.progress(format!("copying {file} ({} of {})", n + 1, files.len()));
    ///     }
    ///     format!("copied {}", files.len())
    /// }
    /// # let _ = copy {};
    /// ```
    pub fn progress(&self, message: impl Into<String>) {
        let message = message.into();
        tracing::info!(
            target: "hookwire::progress",
            agent = self.agent(),
            tool = self.tool(),
            tool_use_id = self.tool_use_id(),
            progress = message.as_str(),
            "tool progress"
        );
        if let Some(channel) = self.scope.channel() {
            let report = crate::channel::CallReport::Progress {
                tool: self.tool(),
                message: &message,
            };
            channel.report(&self.scope, &self.tool_use_id, report);
        }
        if let Some(log) = self.scope.call_log() {
            log.progress(&self.tool_use_id, message);
        }
    }

    /// The typed extension map.
    #[inline]
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The typed extension map, mutably.
    #[inline]
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }

    /// Takes the extension map out (for example to return it with a result).
    #[inline]
    pub fn take_extensions(&mut self) -> Extensions {
        std::mem::take(&mut self.extensions)
    }
}

impl fmt::Debug for ToolContext {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("agent", &self.agent())
            .field("server", &self.server)
            .field("tool", &self.tool.as_str())
            .field("source", &self.source)
            .field("tool_use_id", &self.tool_use_id)
            .field("correlation_id", &self.correlation_id())
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

/// A map from type to value: one value per type.
///
/// It allocates only when the first value is inserted, so hooks that do not
/// use it cost nothing.
///
/// ```
/// # use hookwire::call::Extensions;
/// struct StartedAt(u64);
/// let mut ext = Extensions::new();
/// ext.insert(StartedAt(7));
/// assert_eq!(ext.get::<StartedAt>().map(|s| s.0), Some(7));
/// ```
#[derive(Default)]
pub struct Extensions {
    map: Option<Box<AnyMap>>,
}

type AnyMap = HashMap<TypeId, Box<dyn Any + Send + Sync>, BuildHasherDefault<TypeIdHasher>>;

/// `TypeId`s are already hashes; hashing them again is wasted work.
#[derive(Default)]
struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl Extensions {
    /// An empty map.
    #[inline]
    pub const fn new() -> Self {
        Self { map: None }
    }

    /// Inserts a value, returning the previous value of that type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        self.map
            .get_or_insert_with(Box::default)
            .insert(TypeId::of::<T>(), Box::new(value))
            .and_then(|old| old.downcast().ok().map(|b| *b))
    }

    /// The value of type `T`, if present.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map
            .as_ref()?
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref())
    }

    /// The value of type `T`, mutably.
    pub fn get_mut<T: Send + Sync + 'static>(&mut self) -> Option<&mut T> {
        self.map
            .as_mut()?
            .get_mut(&TypeId::of::<T>())
            .and_then(|v| v.downcast_mut())
    }

    /// The value of type `T`, inserting `default()` first if absent.
    pub fn get_or_insert_with<T: Send + Sync + 'static>(
        &mut self,
        default: impl FnOnce() -> T,
    ) -> &mut T {
        let slot = self
            .map
            .get_or_insert_with(Box::default)
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(default()));
        match slot.downcast_mut() {
            Some(v) => v,
            None => unreachable!("the map is keyed by the value's TypeId"),
        }
    }

    /// Removes and returns the value of type `T`.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> Option<T> {
        self.map
            .as_mut()?
            .remove(&TypeId::of::<T>())
            .and_then(|v| v.downcast().ok().map(|b| *b))
    }

    /// Whether there is a value of type `T`.
    pub fn contains<T: Send + Sync + 'static>(&self) -> bool {
        self.get::<T>().is_some()
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len())
    }

    /// Whether the map is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for Extensions {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type() {
        let mut ext = Extensions::new();
        assert!(ext.is_empty());
        assert_eq!(ext.insert(1u32), None);
        assert_eq!(ext.insert(2u32), Some(1));
        ext.insert("s");
        *ext.get_or_insert_with(|| 0u64) += 5;
        *ext.get_or_insert_with(|| 0u64) += 5;
        assert_eq!(ext.get::<u64>(), Some(&10));
        assert_eq!(ext.len(), 3);
        assert_eq!(ext.remove::<u32>(), Some(2));
        assert!(!ext.contains::<u32>());
    }
}
