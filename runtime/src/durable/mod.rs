//! Durable agent sessions on a [Restate](https://restate.dev) server
//! (feature `durable`).
//!
//! A session is a Restate virtual object, `<name>Session` (`AgentSession`
//! for a hand-written agent; see [`Agent::DURABLE_NAME`]), keyed by the
//! session id: Restate runs one call of a session at a time and keeps its
//! [`RunState`] (history, sticky decisions, waiting calls). Its `run`
//! handler drives the ordinary [`Runner`] with a
//! [`Journal`] on the handler's context: every model
//! response and every tool call (with its lifecycle hooks, approval
//! settings, chain hooks and tool) is one `ctx.run` step. After a crash or a
//! deploy Restate calls the handler again, which replays the recorded steps
//! instead of running them, so no completed model request or tool call runs
//! twice.
//!
//! A call that needs approval becomes a Restate awakeable; a person decides
//! it through the ingress, minutes or days later, from any process:
//! `POST /<name>Session/<session>/approve` with `{"id": "<decision id>",
//! "decision": "approve"}` (or `deny` with a `reason`, `approve_with` with
//! `arguments`, `always_approve`, `always_deny`: the sticky ones become
//! session state; the body is an [`ApproveRequest`], the decision an
//! [`ApprovalDecision`](crate::approval::ApprovalDecision) in its serde
//! form). `defer` decides nothing and is refused (400), as is a decision
//! that is not one of these. Each waiting call has its own
//! `<name>Approval` object, `<session>/<decision id>`, which takes one
//! decision: a second one is refused (409), one for a call that does not
//! wait is refused (404).
//!
//! Timers survive a restart: a call with a timeout (the run's
//! `tool_call_timeout`, a child agent's) records when it started (with the
//! model answer it follows), and run
//! again after a restart it has only what is left of it; the injection
//! TTL's expiry is a wall-clock time in the recorded history.
//!
//! The calls of one step run concurrently (`max_parallel` at a time), each
//! one `ctx.run`, entered into the journal in call order; their results
//! are sent as they come, and the next model answer's acknowledgement
//! covers them.
//!
//! [`DurableAgent`] serves both objects over HTTP (the Restate SDK's
//! server); [`DurableClient`] starts runs, decides calls, reads state and
//! registers a service through the ingress and admin APIs.
//!
//! Only Restate may call the service: given the public key of the
//! server's request identity key ([`DurableAgent::with_identity_key`],
//! [`IDENTITY_KEYS_VAR`]), it refuses every request the server did not
//! sign. A session's `state` handler is private (the ingress does not
//! serve it): the operator reads a state through the admin API
//! ([`DurableClient::state`]). A session keeps the ids of the decisions
//! that ran a call in its Restate state (`spent`), beside its state. Everything here
//! is the official `restate-sdk` (pinned `=0.13.0`) against
//! `restate-server` 1.7.12; the pairing is checked by `examples/tests/durable.rs`.
//!
//! Each agent is served under its own names, `<durable name>Session` and
//! `<durable name>Approval` ([`Agent::DURABLE_NAME`], `Agent` for a
//! hand-written agent: `AgentSession`), so several agents share one
//! cluster, and one process ([`DurableAgent::and`]). Run several processes
//! of it behind one address (replicas); Restate retries a call on another
//! when one dies.

mod client;
mod failover;
mod session;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::BoxFuture;
use crate::agent::lifecycle::LifecycleHooks;
use crate::agent::{
    Agent, DurableName, DurableNameError, Journal, RunError, RunOutput, RunState, Runner,
    StateError,
};
use crate::approval::{Approvals, DeferAll};

pub use client::{
    ClientError, DEFAULT_REQUEST_TIMEOUT, DEFAULT_RUN_TIMEOUT, DurableClient, check_session_id,
};
pub use session::{
    ApproveRequest, Decided, MAX_PROMPT_BYTES, MAX_RESULT_BYTES, RunRequest, TRACE_PREVIEW_BYTES,
};

/// The first wait before Restate retries a failed attempt of a call.
pub const DEFAULT_RETRY_INITIAL: Duration = Duration::from_millis(100);
/// The longest wait between two attempts (the wait doubles up to it).
pub const DEFAULT_RETRY_MAX: Duration = Duration::from_secs(60);
/// The attempts of a call (the first one included) before Restate pauses
/// it: with the default waits, about half an hour of outage.
pub const DEFAULT_RETRY_ATTEMPTS: u32 = 40;

/// A runner as the durable session drives it, whatever its agent type.
pub(crate) trait DurableRunner: Send {
    fn import_state(&mut self, state: RunState) -> Result<(), StateError>;
    fn export_state(&self) -> RunState;
    fn approvals(&self) -> &Approvals;
    fn run<'a>(
        &'a mut self,
        prompt: String,
        journal: &'a dyn Journal,
    ) -> BoxFuture<'a, Result<RunOutput, RunError>>;
    fn resume<'a>(
        &'a mut self,
        journal: &'a dyn Journal,
    ) -> BoxFuture<'a, Result<RunOutput, RunError>>;
}

impl<A, H> DurableRunner for Runner<A, H>
where
    A: Agent + Send + Sync + 'static,
    H: LifecycleHooks + Send + Sync + 'static,
{
    fn import_state(&mut self, state: RunState) -> Result<(), StateError> {
        // The session's own state, from Restate's store: no seal.
        self.restore_stored(state)
    }
    fn export_state(&self) -> RunState {
        Runner::export_state(self)
    }
    fn approvals(&self) -> &Approvals {
        Runner::approvals(self)
    }
    fn run<'a>(
        &'a mut self,
        prompt: String,
        journal: &'a dyn Journal,
    ) -> BoxFuture<'a, Result<RunOutput, RunError>> {
        Box::pin(self.run_journaled(prompt, journal))
    }
    fn resume<'a>(
        &'a mut self,
        journal: &'a dyn Journal,
    ) -> BoxFuture<'a, Result<RunOutput, RunError>> {
        Box::pin(self.resume_journaled(journal))
    }
}

/// Builds a session's runner from its id.
pub(crate) type MakeRunner = dyn Fn(&str) -> Box<dyn DurableRunner> + Send + Sync;

/// An agent served as durable Restate sessions.
///
/// `make` builds the runner of a session (called for every attempt of
/// every call, with the session id): the agent, the model, the hooks, the
/// settings. Its approver is replaced (its approval settings and sticky
/// decisions are kept): a call that needs approval waits
/// for a decision through the ingress. Its correlation id is the session id.
///
/// ```no_run
/// # use hookwire::agent::{AgentConfig, Agent, Runner};
/// # use hookwire::model::PassthroughModel;
/// # use hookwire::Router;
/// # struct Echo { config: AgentConfig, tools: Router }
/// # impl Agent for Echo {
/// #     type Tools = Router;
/// #     fn config(&self) -> &AgentConfig { &self.config }
/// #     fn tools(&self) -> &Router { &self.tools }
/// # }
/// use hookwire::durable::DurableAgent;
/// # async fn serve() -> std::io::Result<()> {
/// let listener = DurableAgent::listener("127.0.0.1:9080".parse().unwrap(), false)?;
/// DurableAgent::new(|_session| {
///     let agent = Echo { config: AgentConfig::new("echo"), tools: Router::new() };
///     Runner::new(agent, PassthroughModel::new())
/// })
/// .serve(listener)
/// .await;
/// # Ok(()) }
/// ```
pub struct DurableAgent {
    /// The agents served, each under its durable name.
    agents: Vec<(DurableName, Arc<MakeRunner>)>,
    retry_initial: Duration,
    retry_max: Duration,
    retry_attempts: u32,
    /// The request identity keys Restate's requests must be signed with
    /// (`publickeyv1_..`); none: every request is served.
    identity_keys: Vec<String>,
}

/// The environment variable [`DurableAgent::with_identity_keys_from_env`]
/// reads: request identity public keys (`publickeyv1_..`), separated by
/// commas or spaces.
pub const IDENTITY_KEYS_VAR: &str = "HOOKWIRE_RESTATE_IDENTITY_KEYS";

/// A request identity key the Restate SDK does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{key}` is not a Restate request identity public key ({reason}): give the \
     `publickeyv1_..` key that matches the server's `request-identity-private-key-pem-file`"
)]
pub struct IdentityKeyError {
    /// The key as given.
    pub key: String,
    /// Why the SDK refused it.
    pub reason: String,
}

impl std::fmt::Debug for DurableAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.agents.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("DurableAgent")
            .field("names", &names)
            .field("retry_initial", &self.retry_initial)
            .field("retry_max", &self.retry_max)
            .field("retry_attempts", &self.retry_attempts)
            .field("identity_keys", &self.identity_keys)
            .finish_non_exhaustive()
    }
}

impl DurableAgent {
    /// Sessions whose runners `make` builds, served as
    /// `<A::DURABLE_NAME>Session` (see [`Agent::DURABLE_NAME`]).
    pub fn new<A, H, F>(make: F) -> Self
    where
        A: Agent + Send + Sync + 'static,
        H: LifecycleHooks + Send + Sync + 'static,
        F: Fn(&str) -> Runner<A, H> + Send + Sync + 'static,
    {
        let make = move |session: &str| -> Box<dyn DurableRunner> {
            let runner = make(session);
            // Every call that needs approval waits for the ingress; the
            // settings and sticky decisions `make` gave are kept.
            let deferring = Approvals::new(DeferAll)
                .with_state(runner.approvals().state())
                .with_conditions_of(runner.approvals());
            Box::new(
                runner
                    .with_approvals(deferring)
                    .with_correlation_id(session),
            )
        };
        Self {
            agents: vec![(A::DURABLE_NAME, Arc::new(make))],
            retry_initial: DEFAULT_RETRY_INITIAL,
            retry_max: DEFAULT_RETRY_MAX,
            retry_attempts: DEFAULT_RETRY_ATTEMPTS,
            identity_keys: Vec::new(),
        }
    }

    /// Serves only requests that Restate signed with the private key
    /// matching `key` (`publickeyv1_..`, the server's
    /// `request-identity-private-key-pem-file`): any other request to the
    /// service's port, discovery included, is refused (401) before a
    /// handler runs, so nobody who reaches the port can run the agent's
    /// handlers around the ingress. Several keys may be given (a key
    /// rotation); one is enough. Refused when the SDK does not take the
    /// key.
    ///
    /// ```
    /// # use hookwire::durable::DurableAgent;
    /// # use hookwire::agent::{AgentConfig, Runner, BasicAgent};
    /// # use hookwire::model::PassthroughModel;
    /// # let echo = || Runner::new(BasicAgent::new(AgentConfig::new("echo"), hookwire::Router::new()), PassthroughModel::new());
    /// let refused = DurableAgent::new(move |_| echo()).with_identity_key("not-a-key");
    /// assert!(refused.is_err());
    /// ```
    pub fn with_identity_key(mut self, key: &str) -> Result<Self, IdentityKeyError> {
        let key = key.trim();
        restate_sdk::endpoint::Endpoint::builder()
            .identity_key(key)
            .map_err(|e| IdentityKeyError {
                key: key.to_owned(),
                reason: e.to_string(),
            })?;
        self.identity_keys.push(key.to_owned());
        Ok(self)
    }

    /// [`with_identity_key`](Self::with_identity_key) for each key in the
    /// environment variable [`IDENTITY_KEYS_VAR`]
    /// (`HOOKWIRE_RESTATE_IDENTITY_KEYS`, separated by commas or spaces);
    /// unchanged when it is unset or empty.
    pub fn with_identity_keys_from_env(self) -> Result<Self, IdentityKeyError> {
        let keys = std::env::var(IDENTITY_KEYS_VAR).unwrap_or_default();
        keys.split([',', ' ', '\n', '\t'])
            .filter(|k| !k.is_empty())
            .try_fold(self, |agent, key| agent.with_identity_key(key))
    }

    /// How soon Restate retries a call whose service died (first retry,
    /// and the longest wait between retries, the wait doubling in
    /// between); 100 ms and 60 s by default.
    pub fn with_retry(mut self, initial: Duration, max: Duration) -> Self {
        self.retry_initial = initial;
        self.retry_max = max.max(initial);
        self
    }

    /// Serves the agent made by [`new`](Self::new) as `<name>Session` and
    /// `<name>Approval` instead of its [`Agent::DURABLE_NAME`] (for agents
    /// whose name is chosen at run time: `DurableName::parse`).
    pub fn with_name(mut self, name: DurableName) -> Self {
        if let Some(first) = self.agents.first_mut() {
            first.0 = name;
        }
        self
    }

    /// Serves `other`'s agents too, from the same process and address,
    /// each under its own names; refused when two would have the same
    /// durable name (give one another with [`with_name`](Self::with_name)).
    /// The retry settings are this one's.
    ///
    /// ```no_run
    /// # use hookwire::agent::{AgentConfig, Agent, Runner, DurableName};
    /// # use hookwire::model::PassthroughModel;
    /// # use hookwire::Router;
    /// # struct Echo { config: AgentConfig, tools: Router }
    /// # impl Agent for Echo {
    /// #     type Tools = Router;
    /// #     fn config(&self) -> &AgentConfig { &self.config }
    /// #     fn tools(&self) -> &Router { &self.tools }
    /// # }
    /// # fn echo() -> Runner<Echo> { Runner::new(Echo { config: AgentConfig::new("echo"), tools: Router::new() }, PassthroughModel::new()) }
    /// use hookwire::durable::DurableAgent;
    /// # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    /// // `EchoSession` / `EchoApproval` and `ShoutSession` / `ShoutApproval`.
    /// let both = DurableAgent::new(|_| echo())
    ///     .with_name(DurableName::new("Echo"))
    ///     .and(DurableAgent::new(|_| echo()).with_name(DurableName::parse("Shout")?))?;
    /// both.serve(DurableAgent::listener("127.0.0.1:9080".parse()?, false)?).await;
    /// # Ok(()) }
    /// ```
    pub fn and(mut self, other: DurableAgent) -> Result<Self, DurableNameError> {
        for (name, make) in other.agents {
            if self.agents.iter().any(|(n, _)| *n == name) {
                return Err(DurableNameError {
                    message: format!(
                        "two agents are served under the durable name `{name}` (services \
                         `{}` and `{}`)",
                        name.session_service(),
                        name.approval_service()
                    ),
                    help: "give one of them another name: `#[agent(durable_name = \"..\")]`, \
                           a card's `durable_name:`, or `DurableAgent::with_name`"
                        .to_owned(),
                });
            }
            self.agents.push((name, make));
        }
        self.identity_keys.extend(other.identity_keys);
        Ok(self)
    }

    /// The durable names served, in order.
    pub fn names(&self) -> impl Iterator<Item = &DurableName> {
        self.agents.iter().map(|(name, _)| name)
    }

    /// How many attempts Restate makes of a call (the first one included,
    /// at least 1) before it pauses the invocation; 40 by default (with the
    /// default waits, about half an hour of outage). A paused invocation
    /// keeps its journal and waits for `PATCH /invocations/<id>/resume` on
    /// the admin API ([`DurableClient::resume`]), which runs it again from
    /// its journal.
    pub fn with_max_attempts(mut self, attempts: u32) -> Self {
        self.retry_attempts = attempts.max(1);
        self
    }

    fn endpoint(&self) -> Result<restate_sdk::endpoint::Endpoint, String> {
        use restate_sdk::endpoint::{Endpoint, ServiceOptions};
        let options = || {
            ServiceOptions::new()
                .retry_policy_initial_interval(self.retry_initial)
                .retry_policy_max_interval(self.retry_max)
                .retry_policy_exponentiation_factor(2.0)
                .retry_policy_max_attempts(u64::from(self.retry_attempts))
                .retry_policy_pause_on_max_attempts()
        };
        let mut builder = Endpoint::builder();
        for (name, make) in &self.agents {
            let definitions =
                session::definitions(name, make.clone()).map_err(|e| e.to_string())?;
            for definition in definitions {
                builder = builder.bind(definition.options(options()));
            }
        }
        for key in &self.identity_keys {
            builder = builder.identity_key(key).map_err(|e| e.to_string())?;
        }
        if self.identity_keys.is_empty() {
            tracing::warn!(
                target: "hookwire::audit",
                "durable agent served without request identity keys: whoever reaches its port \
                 can run its handlers (see `DurableAgent::with_identity_key`)"
            );
        }
        Ok(builder.build())
    }

    /// A listener on `address` for [`serve`](Self::serve): with
    /// `TCP_NODELAY`, which the connections it accepts inherit (without it,
    /// Nagle's algorithm holds back each journal message of a step that
    /// does not finish at once for about 40 ms, the peer's delayed ACK),
    /// and with `SO_REUSEPORT` when `reuse_port` is set, so that several
    /// processes (replicas) listen on the one address Restate knows.
    pub fn listener(
        address: std::net::SocketAddr,
        reuse_port: bool,
    ) -> std::io::Result<tokio::net::TcpListener> {
        let socket = match address {
            std::net::SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
            std::net::SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
        };
        socket.set_nodelay(true)?;
        socket.set_reuseaddr(true)?;
        if reuse_port {
            socket.set_reuseport(true)?;
        }
        socket.bind(address)?;
        socket.listen(1024)
    }

    /// Serves the sessions on `listener` (best made by
    /// [`listener`](Self::listener)) until the process ends.
    pub async fn serve(self, listener: tokio::net::TcpListener) {
        if let Some(server) = self.server() {
            server.serve(listener).await;
        }
    }

    /// The HTTP server of the endpoint; `None` (logged) if a name is not
    /// one Restate takes, which a `DurableName` always is, or a key one the
    /// SDK takes (checked when it was given).
    fn server(&self) -> Option<restate_sdk::http_server::HttpServer> {
        match self.endpoint() {
            Ok(endpoint) => Some(restate_sdk::http_server::HttpServer::new(endpoint)),
            Err(error) => {
                tracing::error!(target: "hookwire::audit", %error, "durable agent not served");
                None
            }
        }
    }

    /// Serves the sessions on `listener` until `shutdown` completes.
    pub async fn serve_until(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()>,
    ) {
        if let Some(server) = self.server() {
            server.serve_with_cancel(listener, shutdown).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::ApprovalDecision;

    #[test]
    fn a_decision_reads_as_the_readme_writes_it() {
        let read = |text: &str| serde_json::from_str::<ApproveRequest>(text).ok();
        let decision = |text: &str| read(text).map(|r| (r.id, r.decision));
        let id = || "t1".to_owned();
        assert_eq!(
            decision(r#"{"id": "t1", "decision": "approve"}"#),
            Some((id(), ApprovalDecision::Approve))
        );
        assert_eq!(
            decision(r#"{"id": "t1", "decision": "deny", "reason": "no"}"#),
            Some((id(), ApprovalDecision::Deny("no".into())))
        );
        assert_eq!(
            decision(r#"{"id": "t1", "decision": "deny"}"#),
            Some((id(), ApprovalDecision::Deny("denied by a person".into())))
        );
        assert_eq!(
            decision(r#"{"id": "t1", "decision": "approve_with", "arguments": {"amount": 5}}"#),
            Some((
                id(),
                ApprovalDecision::ApproveWith(serde_json::json!({"amount": 5}))
            ))
        );
        assert_eq!(
            decision(r#"{"id": "t1", "decision": "always_approve"}"#),
            Some((id(), ApprovalDecision::AlwaysApprove))
        );
        assert_eq!(
            decision(r#"{"id": "t1", "decision": "always_deny"}"#),
            Some((id(), ApprovalDecision::AlwaysDeny))
        );
        // Read, and refused by the handler (`session::given`).
        assert_eq!(
            decision(r#"{"id": "t1", "decision": "defer"}"#),
            Some((id(), ApprovalDecision::Defer))
        );
        assert!(read(r#"{"id": "t1", "decision": "maybe"}"#).is_none());
        assert!(read(r#"{"id": "t1"}"#).is_none());
        assert!(read(r#"{"decision": "approve"}"#).is_none());
    }

    #[test]
    fn a_decision_is_written_as_it_is_read() {
        let mut request = ApproveRequest {
            id: "t1".into(),
            decision: ApprovalDecision::Deny("no".into()),
            who: None,
        };
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            serde_json::json!({"id": "t1", "decision": "deny", "reason": "no"})
        );
        request.who = Some("alice".into());
        let json =
            serde_json::json!({"id": "t1", "decision": "deny", "reason": "no", "who": "alice"});
        assert_eq!(serde_json::to_value(&request).unwrap(), json);
        let back: ApproveRequest = serde_json::from_value(json).unwrap();
        assert_eq!(back.who.as_deref(), Some("alice"));
    }
}
