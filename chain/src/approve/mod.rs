//! Asking a person (or a policy) whether a call may run: the interface a
//! chain asks through, and the gate every approval passes.
//!
//! * this file: the [`ApprovalRequest`], the [`Approver`] that answers it
//!   (one decision per call), [`FnApprover`], and the notes a gate leaves
//!   for the run's trace ([`ApprovalNote`], [`DecidedBy`]);
//! * `identity.rs`: [`CallKey`], the identity of a call that every decision
//!   names;
//! * `gate.rs`: [`NeedsApproval`], the per-tool approval gate in a chain,
//!   and [`gate`], the one path every approval takes.
//!
//! The store of decisions (sticky decisions, pending calls, the approver
//! it asks) is not here: it is an [`Approver`] of the layer above (`hookwire::approval`).

use crate::BoxFuture;
use crate::call::ToolArgs;
use crate::decision::ApprovalDecision;
use crate::view::ToolView;

mod gate;
pub mod identity;

pub use gate::{NeedsApproval, gate, gate_call};
pub use identity::{CallKey, CallSite};

/// What an approver is asked about.
#[derive(Debug)]
#[non_exhaustive]
pub struct ApprovalRequest<'a> {
    /// The agent making the call.
    pub agent: &'a str,
    /// The tool to be called.
    pub tool: &'a str,
    /// The model's id for the call.
    pub tool_use_id: &'a str,
    /// The arguments the tool would receive (after every rewrite so far),
    /// parsed when they parse: read them with [`get`](Self::get) or
    /// [`arguments_value`](Self::arguments_value).
    pub arguments: &'a ToolArgs,
    /// Why approval is needed (the asking hook's reason).
    pub reason: &'a str,
    /// The call's identity: a decision given for it applies to this call,
    /// with these arguments, only.
    pub key: &'a CallKey,
    /// What the gate knows of the tool (`None`: nothing; no metadata, and
    /// edited arguments are refused).
    view: Option<ToolView>,
    /// The tool's metadata for these arguments, made on first use.
    metadata: std::sync::OnceLock<Option<serde_json::Value>>,
    /// What the store of decisions tells the approver besides the reason
    /// (a remembered condition that lapsed).
    note: Option<String>,
    /// The person who decided, if the approver names one
    /// ([`decided_by`](Self::decided_by)); shared with the gate, which
    /// reads it into the call's [`ApprovalNote`] once the approver answered.
    who: std::sync::Arc<std::sync::OnceLock<String>>,
}

impl<'a> ApprovalRequest<'a> {
    /// The request about the call with `key` and `arguments`, which the
    /// gate has parsed ([`ToolArgs::share`]) so that [`get`](Self::get)
    /// can read them, of the tool `view` describes.
    #[doc(hidden)]
    pub fn new(
        key: &'a CallKey,
        arguments: &'a ToolArgs,
        reason: &'a str,
        view: Option<ToolView>,
    ) -> Self {
        Self {
            agent: &key.agent,
            tool: &key.tool,
            tool_use_id: &key.id,
            arguments,
            reason,
            key,
            view,
            metadata: std::sync::OnceLock::new(),
            note: None,
            who: std::sync::Arc::default(),
        }
    }

    /// The request with a note for the approver (set by the run's
    /// approvals: a remembered condition of the tool that lapsed).
    #[doc(hidden)]
    pub fn with_note(mut self, note: Option<String>) -> Self {
        self.note = note;
        self
    }

    /// What the run's approvals tell the approver besides the reason: why
    /// a decision it remembered for the tool no longer applies (a
    /// remembered condition that lapsed because the tool's schema
    /// changed), `None` when there is nothing to tell.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Names the person who decides this request (a console's user, say),
    /// for the run's trace: the call's [`ApprovalNote::who`] and the
    /// `hookwire::audit` log. The first name given counts. It decides
    /// nothing: the approver's answer does.
    ///
    /// ```
    /// # use hookwire::approval::{ApprovalDecision, FnApprover};
    /// let approver = FnApprover::new(|req| {
    ///     req.decided_by("policy bot");
    ///     ApprovalDecision::Approve
    /// });
    /// # let _ = approver;
    /// ```
    pub fn decided_by(&self, person: impl Into<String>) {
        let _ = self.who.set(person.into());
    }

    /// Where the person the approver names is written, read by the gate
    /// after the request was answered.
    pub(crate) fn who_slot(&self) -> std::sync::Arc<std::sync::OnceLock<String>> {
        self.who.clone()
    }

    /// What the tool gives the approver besides the arguments
    /// ([`Tool::approval_metadata`](crate::Tool::approval_metadata),
    /// `#[tool(approval_metadata = path)]`), computed from these arguments
    /// on first use: `None` when the tool declares none or the arguments
    /// do not fit its type.
    ///
    /// ```
    /// # use hookwire::approval::{ApprovalDecision, FnApprover};
    /// let approver = FnApprover::new(|req| {
    ///     let risk = req.metadata().and_then(|m| m["risk"].as_str()).unwrap_or("unknown");
    ///     if risk == "low" { ApprovalDecision::Approve } else { ApprovalDecision::Defer }
    /// });
    /// # let _ = approver;
    /// ```
    pub fn metadata(&self) -> Option<&serde_json::Value> {
        self.metadata
            .get_or_init(|| self.view.and_then(|view| view.metadata(self.arguments)))
            .as_ref()
    }

    /// What the gate knows of the tool.
    #[doc(hidden)]
    pub fn view(&self) -> Option<ToolView> {
        self.view
    }

    /// One argument, by name: `req.get("order")` is the JSON value of the
    /// tool's `order` parameter (a struct parameter is an object). `None`
    /// if the call has no such argument, or if its arguments do not parse
    /// as a JSON object (then [`arguments_value`](Self::arguments_value)
    /// is `null`).
    ///
    /// ```
    /// # use hookwire::approval::{ApprovalDecision, FnApprover};
    /// let approver = FnApprover::new(|req| match req.get("amount").and_then(|a| a.as_f64()) {
    ///     Some(amount) if amount <= 100.0 => ApprovalDecision::Approve,
    ///     _ => ApprovalDecision::Deny("over the limit".into()),
    /// });
    /// # let _ = approver;
    /// ```
    pub fn get(&self, name: &str) -> Option<&'a serde_json::Value> {
        self.arguments.parsed()?.get(name)
    }

    /// The arguments as a JSON value (`null` if they do not parse): what an
    /// approver shows.
    pub fn arguments_value(&self) -> serde_json::Value {
        self.arguments.to_value().unwrap_or(serde_json::Value::Null)
    }
}

/// How a gate's approval was decided, as the run's trace records it
/// (`hookwire::agent::TraceEvent::ToolCall`'s
/// `approvals`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DecidedBy {
    /// The approver the run's `Approvals` ask (the one given to
    /// `hookwire::approval::Approvals::new`), for this call only.
    Asker,
    /// The approver the run's `Approvals` ask, for this call and every
    /// later call of the tool ([`ApprovalDecision::AlwaysApprove`] /
    /// [`ApprovalDecision::AlwaysDeny`], which the `Approvals` keep as a
    /// sticky decision).
    AskerAlways,
    /// A sticky decision given earlier for the tool.
    Sticky,
    /// A remembered condition of the tool
    /// ([`ApprovalDecision::AlwaysApproveWhen`]) that the call's arguments
    /// meet.
    Condition,
    /// A decision given for this call while it waited
    /// (`hookwire::approval::Approvals::resolve`, a durable session's `approve`).
    Resolved,
    /// The approver deferred ([`ApprovalDecision::Defer`]): the call
    /// waits for a decision (kept by the run's `Approvals`; from any other
    /// approver the call does not run).
    Deferred,
    /// An [`Approver`] other than the run's `Approvals`
    /// (`hookwire::approval::Approvals`), for this call only: it keeps
    /// nothing, so its [`ApprovalDecision::AlwaysApprove`] /
    /// [`ApprovalDecision::AlwaysDeny`] decide this call and the next one
    /// is asked again.
    Approver,
    /// Nobody: no approver is configured, so the call was denied.
    NoApprover,
}

impl DecidedBy {
    /// The name the trace prints (`asker`, `asker (always)`, `sticky`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Asker => "asker",
            Self::AskerAlways => "asker (always)",
            Self::Sticky => "sticky decision",
            Self::Condition => "remembered condition",
            Self::Resolved => "decision given while waiting",
            Self::Deferred => "approver (deferred)",
            Self::Approver => "approver",
            Self::NoApprover => "no approver configured",
        }
    }
}

/// One approval gate a call passed, as the run's trace records it: the
/// gate, what it decided and who decided.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ApprovalNote {
    /// The gate: `approver` (the loop's gate: a lifecycle hook's `Ask` or an
    /// agent-level requirement), `needs_approval`, or the pre hook that
    /// asked.
    pub gate: String,
    /// Whether the call was approved.
    pub approved: bool,
    /// Who decided.
    pub by: DecidedBy,
    /// Whether the approver edited the arguments
    /// ([`ApprovalDecision::ApproveWith`]): approved, the call ran with the
    /// edit; not approved, the edit did not fit the tool and the call did
    /// not run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// The person who decided, when the approver named one
    /// ([`ApprovalRequest::decided_by`]): a console's user, say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
}

impl std::fmt::Display for ApprovalNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match (self.approved, self.by) {
            (true, _) if self.edited => "approved with edited arguments",
            (true, _) => "approved",
            (false, DecidedBy::Deferred) => "waiting",
            (false, _) if self.edited => "edit refused",
            (false, _) => "denied",
        };
        write!(f, "{what} at {} by ", self.gate)?;
        match &self.who {
            Some(who) => write!(f, "{who:?} ({})", self.by.as_str()),
            None => f.write_str(self.by.as_str()),
        }
    }
}

/// Decides whether a call that needs approval may run: a person at a
/// prompt (`hookwire::approval::TerminalApprover`), a policy
/// ([`FnApprover`]), or the run's store of decisions
/// (`hookwire::approval::Approvals`, which asks an approver of its own and
/// remembers its sticky and deferred answers).
///
/// It answers with any [`ApprovalDecision`]; what a sticky or deferred one
/// means depends on who asked (see [`ApprovalDecision`]'s table): the run's
/// `Approvals` remember them, a chain's [`gate`] asking an approver
/// directly applies them to the call asked about only.
///
/// Approval waits on a human or a policy service, so this trait is
/// object-safe and boxes its future; it is never on the hot path.
pub trait Approver: Send + Sync {
    /// Decides on one request.
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision>;

    /// Decides on one request and says who decided, for the run's trace.
    /// The default calls [`decide`](Self::decide) and names
    /// [`DecidedBy::Approver`]; `Approvals` (`hookwire::approval`) tells its sticky decisions,
    /// given decisions and the approver it asks apart.
    fn decide_noted<'a>(
        &'a self,
        request: ApprovalRequest<'a>,
    ) -> BoxFuture<'a, (ApprovalDecision, DecidedBy)> {
        Box::pin(async move { (self.decide(request).await, DecidedBy::Approver) })
    }
}

/// An approver from a synchronous function: the programmatic approver.
///
/// ```
/// # use hookwire::approval::{ApprovalDecision, Approvals, FnApprover};
/// let approver = FnApprover::new(|req| match req.tool {
///     "shell" => ApprovalDecision::Deny("no shell".into()),
///     "rm" => ApprovalDecision::AlwaysDeny,
///     _ => ApprovalDecision::Approve,
/// });
/// // The run's approvals ask it, and remember `rm`'s "always deny".
/// let approvals = Approvals::new(approver);
/// # let _ = approvals;
/// ```
pub struct FnApprover<F>(F);

impl<F> FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> ApprovalDecision + Send + Sync,
{
    /// Wraps `decide`.
    pub fn new(decide: F) -> Self {
        Self(decide)
    }

    /// Decides on `request` now.
    pub fn decide_now(&self, request: &ApprovalRequest<'_>) -> ApprovalDecision {
        (self.0)(request)
    }
}

impl<F> Approver for FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> ApprovalDecision + Send + Sync,
{
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        Box::pin(std::future::ready(self.decide_now(&request)))
    }
}

/// The reason given to a call whose approval was deferred (the run pauses).
pub const PENDING_REASON: &str = "approval pending";
