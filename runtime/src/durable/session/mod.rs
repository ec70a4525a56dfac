//! The two Restate virtual objects of a durable agent: `AgentSession` (one
//! per session id: the run, its state, approvals by id) and `AgentApproval`
//! (one per waiting call: resolved exactly once).

use std::sync::Arc;

use restate_sdk::context::RequestTarget;
use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};

use crate::agent::{RunOutput, RunState, RunStatus};
use crate::approval::{ApprovalDecision, MemorySpent, PendingApproval};

use super::{DurableRunner, MakeRunner};

/// The state key of a session's [`RunState`].
const STATE: &str = "state";
/// The state key of the decisions the session used to run calls (their
/// ids): the session's [`SpentDecisions`](crate::approval::SpentDecisions)
/// record, kept beside its state.
const SPENT: &str = "spent";

/// The largest prompt a session takes, in bytes (1 MiB). A session's state
/// holds its prompts (in the history and the trace), and Restate refuses a
/// state entry over its message limit (about 16 MiB by default): a larger
/// prompt is refused up front (413), before anything is written, instead
/// of failing every retry and blocking the session behind it.
pub const MAX_PROMPT_BYTES: usize = 1 << 20;
/// The state keys of an approval gate.
const AWAKEABLE: &str = "awakeable";
const PENDING: &str = "pending";
const DECIDED: &str = "decided";

/// The key of the approval gate of the call with decision id `id` in
/// `session`. The id is hex (no `/`), so the session is what precedes the
/// last `/`, whatever it contains.
pub(crate) fn gate_key(session: &str, id: &str) -> String {
    format!("{session}/{id}")
}

mod journal;
mod stored;

pub use journal::MAX_RESULT_BYTES;
use journal::RestateJournal;
pub use stored::TRACE_PREVIEW_BYTES;
pub(crate) use stored::stored;

/// The request body of `AgentSession/<id>/run`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRequest {
    /// The user's message.
    pub prompt: String,
}

/// The request body of `AgentSession/<id>/approve`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApproveRequest {
    /// The decision id of the waiting call
    /// ([`PendingApproval::id`](crate::approval::PendingApproval::id), the
    /// `id` of each entry of a paused run's `pending` list).
    pub id: String,
    /// The decision, in its serde form (`"decision": "approve"`, ..):
    /// any but [`Defer`](ApprovalDecision::Defer), which decides nothing.
    #[serde(flatten)]
    pub decision: ApprovalDecision,
    /// The person who decides (`"who": "alice"`), if the request names
    /// one: the call's [`ApprovalNote::who`](crate::approval::ApprovalNote::who)
    /// in the run's trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
}

/// A decision as the gate passes it to the waiting run: the decision and
/// who gave it. (Its JSON is the decision's with an optional `who`, so a
/// decision journaled before `who` existed reads back.)
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Given {
    #[serde(flatten)]
    decision: ApprovalDecision,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    who: Option<String>,
}

/// What `AgentApproval/<session>/<id>/open` receives from the session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Opened {
    awakeable: String,
    pending: PendingApproval,
}

/// The answer to an approval: which call was decided, how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decided {
    /// The call.
    pub pending: PendingApproval,
    /// The decision.
    #[serde(flatten)]
    pub decision: ApprovalDecision,
    /// Who decided, if the request named a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
}

/// The `AgentSession` virtual object: a session's runs, keyed by session id.
/// Served as `<durable name>Session` (see [`definitions`]).
pub(crate) struct AgentSession {
    pub(crate) make: Arc<MakeRunner>,
    /// The agent's approval gates: `<durable name>Approval`.
    pub(crate) approval: Arc<str>,
}

fn terminal(code: u16, message: impl std::fmt::Display) -> HandlerError {
    TerminalError::new_with_code(code, message.to_string()).into()
}

/// The session id rule, the client's ([`check_session_id`](super::check_session_id)),
/// enforced by the service too: an id the client would refuse (with a `/`
/// that could reach another session's approval gate, control characters,
/// too long) gets a 400 and nothing runs.
fn checked_session(key: &str) -> Result<(), HandlerError> {
    super::check_session_id(key).map_err(|e| terminal(400, e))
}

/// Retries: a failed attempt (the service down, a model request failing
/// before it is journaled) is retried after 100 ms, doubling to at most 60 s
/// between attempts, 40 attempts in all (about half an hour); then the
/// invocation is paused, not killed: `PATCH /invocations/<id>/resume` on
/// the admin API (or `restate invocations resume <id>`) runs it again from
/// its journal. [`DurableAgent`](super::DurableAgent) sets the policy it
/// serves with (these are its defaults): see `with_retry` and
/// `with_max_attempts`.
#[restate_sdk::object(
    name = "AgentSession",
    invocation_retry_policy(
        initial_interval = "100ms",
        factor = 2.0,
        max_interval = "60s",
        max_attempts = 40,
        on_max_attempts = "pause",
    )
)]
impl AgentSession {
    /// Runs one user message to the end; waits (durably) for approvals.
    #[handler]
    async fn run(
        &self,
        ctx: ObjectContext<'_>,
        Json(request): Json<RunRequest>,
    ) -> Result<Json<RunOutput>, HandlerError> {
        let session = ctx.key().to_owned();
        checked_session(&session)?;
        if request.prompt.len() > MAX_PROMPT_BYTES {
            return Err(terminal(
                413,
                format!(
                    "the prompt is {} bytes; a session takes prompts of at most {MAX_PROMPT_BYTES} \
                     bytes (its state keeps each one)",
                    request.prompt.len()
                ),
            ));
        }
        let mut runner: Box<dyn DurableRunner> = (self.make)(&session);
        let spent = ctx.get::<Json<Vec<String>>>(SPENT).await?;
        let spent = Arc::new(MemorySpent::from_ids(
            spent.map(Json::into_inner).unwrap_or_default(),
        ));
        runner.approvals().keep_spent_in(spent.clone());
        if let Some(Json(state)) = ctx.get::<Json<RunState>>(STATE).await? {
            runner.import_state(state).map_err(|e| terminal(500, e))?;
        }
        let journal = RestateJournal(&ctx);
        let mut result = runner.run(request.prompt, &journal).await;
        loop {
            // The state is the session's, whatever happened: the history so
            // far, the sticky decisions, the pending calls.
            ctx.set(STATE, Json(stored(runner.export_state())));
            let ids = spent.ids();
            if !ids.is_empty() {
                ctx.set(SPENT, Json(ids));
            }
            let output = result.map_err(|e| terminal(500, e))?;
            let RunStatus::Paused { pending } = &output.status else {
                return Ok(Json(output));
            };
            let mut waits = Vec::with_capacity(pending.len());
            for call in pending {
                let (awakeable, decision) = ctx.awakeable::<Json<Given>>();
                let gate = gate_key(&session, &call.id());
                ctx.request::<_, ()>(
                    RequestTarget::object(&*self.approval, gate, "open"),
                    Json(Opened {
                        awakeable,
                        pending: call.clone(),
                    }),
                )
                .send();
                waits.push((call.clone(), decision));
            }
            for (call, decision) in waits {
                let Json(decision) = decision.await?;
                apply(runner.as_ref(), &call, decision);
            }
            result = runner.resume(&journal).await;
        }
    }

    /// Decides a waiting call: `{"id": "<decision id>", "decision":
    /// "approve" | "deny" | "always_approve" | "always_deny", "reason": ".."}`,
    /// or `{"id": .., "decision": "approve_with", "arguments": {..}}`
    /// (an [`ApproveRequest`]); `defer` is refused (400).
    #[handler]
    async fn approve(
        &self,
        ctx: SharedObjectContext<'_>,
        Json(request): Json<ApproveRequest>,
    ) -> Result<Json<Decided>, HandlerError> {
        checked_session(ctx.key())?;
        // A decision id is 64 hex digits (a digest of the call's identity):
        // anything else (a model's call id, a path with `/` that would
        // reach another session's gate) waits nowhere.
        if request.id.len() != 64 || !request.id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(terminal(
                404,
                format!(
                    "no call `{}` waits for approval in session `{}`: give the `id` of a \
                     pending approval (64 hex digits)",
                    request.id,
                    ctx.key()
                ),
            ));
        }
        given(&request)?;
        let key = gate_key(ctx.key(), &request.id);
        let given = Given {
            decision: request.decision,
            who: request.who,
        };
        let decided = ctx
            .request::<_, Json<Decided>>(
                RequestTarget::object(&*self.approval, key, "decide"),
                Json(given),
            )
            .call()
            .await?;
        Ok(decided)
    }

    /// The session's state: history, sticky decisions, waiting calls.
    /// Private: the ingress refuses it (a session's history is not for
    /// whoever can reach the ingress); the operator reads it through the
    /// admin API ([`DurableClient::state`](super::DurableClient::state)).
    #[handler(ingress_private)]
    async fn state(
        &self,
        ctx: SharedObjectContext<'_>,
    ) -> Result<Json<Option<RunState>>, HandlerError> {
        checked_session(ctx.key())?;
        Ok(Json(
            ctx.get::<Json<RunState>>(STATE)
                .await?
                .map(Json::into_inner),
        ))
    }
}

/// Refuses (400) a decision that cannot be given for a waiting call:
/// `defer` (it waits already), one this version does not know, or edited
/// arguments that are not a JSON object; and a `who` that names nobody
/// (blank) or holds control characters (it goes to the trace and the log).
fn given(request: &ApproveRequest) -> Result<(), HandlerError> {
    if let Some(who) = &request.who
        && (who.trim().is_empty() || who.chars().any(char::is_control))
    {
        return Err(terminal(
            400,
            format!(
                "`who` of the decision for call `{}` is {who:?}: name the person who \
                 decides in printable text, or leave `who` out",
                request.id
            ),
        ));
    }
    match &request.decision {
        ApprovalDecision::ApproveWith(arguments) if !arguments.is_object() => Err(terminal(
            400,
            format!(
                "the edited arguments for call `{}` are {}, not a JSON object of the \
                 tool's arguments: give an object such as `{{\"amount\": 5}}`",
                request.id,
                hookwire_chain::call::json_kind(arguments)
            ),
        )),
        ApprovalDecision::Approve
        | ApprovalDecision::Deny(_)
        | ApprovalDecision::ApproveWith(_)
        | ApprovalDecision::AlwaysApprove
        | ApprovalDecision::AlwaysDeny => Ok(()),
        other => Err(terminal(
            400,
            format!(
                "`{}` does not decide call `{}`: give `approve`, `deny`, `approve_with`, \
                 `always_approve` or `always_deny`",
                other.as_str(),
                request.id
            ),
        )),
    }
}

/// Gives the decision to the runner
/// ([`Approvals::resolve`](crate::approval::Approvals::resolve)): sticky
/// ones become session state.
fn apply(runner: &dyn DurableRunner, call: &PendingApproval, given: Given) {
    let resolved = runner
        .approvals()
        .resolve_by(&call.id(), given.decision, given.who.as_deref());
    if let Err(error) = resolved {
        // The run's state is the journaled one: the call waits, and the
        // handler refused any decision `resolve` refuses, so this does not
        // happen; if it did, the call is asked about again.
        tracing::warn!(target: "hookwire::audit", %error, "durable decision not applied");
    }
}

/// The `AgentApproval` virtual object: one waiting call, keyed by
/// `<session>/<decision id>`, decided at most once. Private: only the
/// session's handlers call it (`open` when a call starts waiting, `decide`
/// from `approve`); the ingress refuses an outside call, so no one can
/// replace a waiting call's awakeable or decide a call without the
/// session's checks. The key cannot collide: a session id has no `/` (both
/// the client and the service check it) and a decision id is hex.
pub(crate) struct AgentApproval;

#[restate_sdk::object(name = "AgentApproval", ingress_private)]
impl AgentApproval {
    /// Opens the gate (the session calls it when a call starts waiting).
    #[handler]
    async fn open(
        &self,
        ctx: ObjectContext<'_>,
        Json(opened): Json<Opened>,
    ) -> Result<(), HandlerError> {
        ctx.set(AWAKEABLE, opened.awakeable);
        ctx.set(PENDING, Json(opened.pending));
        ctx.clear(DECIDED);
        Ok(())
    }

    /// Decides the call, once.
    #[handler]
    async fn decide(
        &self,
        ctx: ObjectContext<'_>,
        Json(given): Json<Given>,
    ) -> Result<Json<Decided>, HandlerError> {
        let (session, id) = ctx.key().rsplit_once('/').unwrap_or((ctx.key(), ""));
        let (Some(awakeable), Some(Json(pending))) = (
            ctx.get::<String>(AWAKEABLE).await?,
            ctx.get::<Json<PendingApproval>>(PENDING).await?,
        ) else {
            return Err(terminal(
                404,
                format!("no call `{id}` waits for approval in session `{session}`"),
            ));
        };
        if let Some(Json(earlier)) = ctx.get::<Json<ApprovalDecision>>(DECIDED).await? {
            return Err(terminal(
                409,
                format!(
                    "call `{id}` of session `{session}` was already decided ({}); \
                     this decision is ignored",
                    earlier.as_str()
                ),
            ));
        }
        ctx.set(DECIDED, Json(given.decision.clone()));
        ctx.resolve_awakeable(&awakeable, Json(given.clone()));
        Ok(Json(Decided {
            pending,
            decision: given.decision,
            who: given.who,
        }))
    }
}

/// The two services of one agent, under its durable name: the session
/// object `<name>Session` and the private gate object `<name>Approval`.
///
/// The `#[restate_sdk::object]` macro fixes a service's name at compile
/// time; an agent's name is known only when it is served. So each service
/// takes its manifest from the macro's [`Discoverable`] impl (handlers,
/// retry policy, `ingress_private`) with the name replaced, and a
/// dispatcher of ours that calls the handlers exactly as the macro's would.
pub(crate) fn definitions(
    name: &crate::agent::DurableName,
    make: Arc<MakeRunner>,
) -> Result<[restate_sdk::service::ServiceDefinition; 2], crate::agent::DurableNameError> {
    use restate_sdk::service::Discoverable;
    let named =
        |mut discovery: restate_sdk::discovery::Service, service: String| {
            discovery.name = restate_sdk::discovery::ServiceName::try_from(service.as_str())
                .map_err(|e| crate::agent::DurableNameError {
                    message: format!("`{service}` is not a valid Restate service name: {e}"),
                    help: "choose another durable name".to_owned(),
                })?;
            Ok::<_, crate::agent::DurableNameError>(discovery)
        };
    let approval: Arc<str> = name.approval_service().into();
    let session = Arc::new(AgentSession {
        make,
        approval: approval.clone(),
    });
    Ok([
        restate_sdk::service::macro_support::service_definition(
            Dispatch::Session(session),
            named(AgentSession::discover(), name.session_service())?,
        ),
        restate_sdk::service::macro_support::service_definition(
            Dispatch::Approval(Arc::new(AgentApproval)),
            named(AgentApproval::discover(), approval.to_string())?,
        ),
    ])
}

/// Calls a handler of one of the two objects: what the macro generates for
/// an object, for objects whose name is chosen at run time.
enum Dispatch {
    Session(Arc<AgentSession>),
    Approval(Arc<AgentApproval>),
}

/// Runs one handler: its input, the call, its result, the end.
macro_rules! handle {
    ($ctx:ident, $object:ident . $handler:ident) => {{
        let (input, metadata) = $ctx.input().await;
        let result = $object.$handler((&$ctx, metadata).into(), input).await;
        $ctx.handle_handler_result(result);
        $ctx.end();
        Ok(())
    }};
}

/// [`handle!`] for a handler without input.
macro_rules! handle_no_input {
    ($ctx:ident, $object:ident . $handler:ident) => {{
        let ((), metadata) = $ctx.input::<()>().await;
        let result = $object.$handler((&$ctx, metadata).into()).await;
        $ctx.handle_handler_result(result);
        $ctx.end();
        Ok(())
    }};
}

impl restate_sdk::service::Service for Dispatch {
    type Future = restate_sdk::service::macro_support::ServiceBoxFuture;

    fn handle(&self, ctx: restate_sdk::endpoint::ContextInternal) -> Self::Future {
        let unknown = |ctx: &restate_sdk::endpoint::ContextInternal| {
            Err(restate_sdk::endpoint::Error::unknown_handler(
                ctx.service_name(),
                ctx.handler_name(),
            ))
        };
        match self {
            Self::Session(object) => {
                let object = object.clone();
                Box::pin(async move {
                    match ctx.handler_name() {
                        "run" => handle!(ctx, object.run),
                        "approve" => handle!(ctx, object.approve),
                        "state" => handle_no_input!(ctx, object.state),
                        _ => unknown(&ctx),
                    }
                })
            }
            Self::Approval(object) => {
                let object = object.clone();
                Box::pin(async move {
                    match ctx.handler_name() {
                        "open" => handle!(ctx, object.open),
                        "decide" => handle!(ctx, object.decide),
                        _ => unknown(&ctx),
                    }
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decision journaled before `who` existed (the awakeable's payload
    /// was the bare decision) reads back, without a person.
    #[test]
    fn a_given_decision_reads_the_bare_decision_of_an_older_journal() {
        let old = serde_json::json!({"decision": "deny", "reason": "no"});
        let given: Given = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(given.decision, ApprovalDecision::Deny("no".into()));
        assert_eq!(given.who, None);
        assert_eq!(serde_json::to_value(&given).unwrap(), old);
        let named: Given =
            serde_json::from_value(serde_json::json!({"decision": "approve", "who": "alice"}))
                .unwrap();
        assert_eq!(named.who.as_deref(), Some("alice"));
    }

    /// A `who` that names nobody, or that would write control characters
    /// into the trace and the log, is refused; a name passes.
    #[test]
    fn who_must_name_someone_in_printable_text() {
        let request = |who: &str| ApproveRequest {
            id: "a".repeat(64),
            decision: ApprovalDecision::Approve,
            who: Some(who.to_owned()),
        };
        assert!(given(&request("alice")).is_ok());
        assert!(given(&request("Zoë O'Brien")).is_ok());
        assert!(given(&request("  ")).is_err());
        assert!(given(&request("eve\u{1b}[2J")).is_err());
        assert!(given(&request("bob\nadmin approved")).is_err());
    }
}
