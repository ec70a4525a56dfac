//! A client of a durable agent through Restate's HTTP ingress and admin
//! APIs.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

mod admin;

use super::failover::{Failure, Ingresses, Replay, fresh_key, next_step};
use super::{ApproveRequest, Decided, RunRequest};
use crate::agent::{Agent, DurableName, RunOutput};
use crate::approval::ApprovalDecision;
use crate::outside::{ERROR_BODY_LIMIT, clean};

/// Why a request to the Restate server failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The session id has characters the ingress does not take in a path.
    #[error("invalid session id {id:?}: {why} (use 1 to 128 characters of A-Z a-z 0-9 . _ ~ -)")]
    InvalidSessionId {
        /// The id.
        id: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The invocation id is not one Restate gives.
    #[error(
        "invalid invocation id {id:?}: give the `invocationId` a start returned (`inv_` and \
         letters and digits)"
    )]
    InvalidInvocationId {
        /// The id.
        id: String,
    },
    /// No ingress address was given
    /// ([`DurableClient::with_ingresses`] of nothing).
    #[error("no ingress address: give at least one (`http://127.0.0.1:8080`)")]
    NoIngress,
    /// A request that must not run twice (a start without an idempotency
    /// key, a [`run`](DurableClient::run)) may have reached a node that
    /// failed before it answered: it was not sent to another node, which
    /// could have run it a second time. Read the session's state (or list
    /// its invocations) before starting it again, or give starts an
    /// idempotency key. Only a client with several ingress addresses
    /// reports this; with one, the error is [`Unreachable`](Self::Unreachable).
    #[error(
        "the request to {url} may have been received before the node failed, and was not sent \
         again through another node: {message}"
    )]
    MaybeReceived {
        /// The URL asked.
        url: String,
        /// What failed.
        message: String,
    },
    /// The server could not be reached (through any of the client's
    /// ingress addresses: the last one's error).
    #[error("the Restate server at {url} is unreachable: {message}")]
    Unreachable {
        /// The URL asked.
        url: String,
        /// Why.
        message: String,
    },
    /// The server did not answer within the client's timeout
    /// ([`DurableClient::with_timeout`], or
    /// [`DurableClient::with_run_timeout`] for a wait for a run's output).
    #[error("the Restate server at {url} did not answer within {} ms", after.as_millis())]
    TimedOut {
        /// The URL asked.
        url: String,
        /// The timeout that fired.
        after: Duration,
    },
    /// The server answered with an error.
    #[error("{url} answered {status}: {message}")]
    Rejected {
        /// The URL asked.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// The answer is not what this client expects.
    #[error("unexpected answer from {url}: {message}")]
    Decode {
        /// The URL asked.
        url: String,
        /// Why it did not parse.
        message: String,
    },
}

impl ClientError {
    /// The HTTP status of a [`Rejected`](Self::Rejected) request.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Rejected { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The URL the failed request asked (empty for errors found before a
    /// request).
    pub fn url(&self) -> &str {
        match self {
            Self::Unreachable { url, .. }
            | Self::TimedOut { url, .. }
            | Self::Rejected { url, .. }
            | Self::Decode { url, .. }
            | Self::MaybeReceived { url, .. } => url,
            Self::InvalidSessionId { .. } | Self::InvalidInvocationId { .. } | Self::NoIngress => {
                ""
            }
        }
    }
}

/// Checks a session id: 1 to 128 characters, each an unreserved URL
/// character (`A-Z a-z 0-9 . _ ~ -`), not `.` or `..`. Other ids are
/// refused before any request: in a URL path the ingress would reject them
/// or read another object.
pub fn check_session_id(id: &str) -> Result<(), ClientError> {
    let why = if id.is_empty() {
        Some("it is empty")
    } else if id.len() > 128 {
        Some("it is longer than 128 characters")
    } else if id == "." || id == ".." {
        Some("it is a path segment")
    } else if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '~' | '-'))
    {
        Some("it has a character outside the unreserved URL characters")
    } else {
        None
    };
    match why {
        Some(why) => Err(ClientError::InvalidSessionId {
            id: id.to_owned(),
            why,
        }),
        None => Ok(()),
    }
}

/// The default limit of one request to the server ([`DurableClient::with_timeout`]).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The default limit of a wait for a run's output
/// ([`DurableClient::with_run_timeout`]).
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(600);

/// The limit of connecting to the server.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Starts runs, decides waiting calls and reads sessions of a durable agent
/// through Restate's ingress (`http://127.0.0.1:8080` by default), and
/// registers services through its admin API.
///
/// On a cluster, give it every node's ingress
/// ([`with_ingresses`](Self::with_ingresses), [`add_ingress`](Self::add_ingress)):
/// a request goes to the address that answered last, and moves to the next
/// one when it fails before an answer, if sending it again cannot run it
/// twice: always when the connection was refused (nothing was sent); after
/// a connection that broke, only for reads ([`output`](Self::output)) and
/// requests with an idempotency key, which the cluster deduplicates (a
/// [`start`](Self::start) given a key, and every [`decide`](Self::decide),
/// which sends a fresh key of its own). A start without a key or a
/// [`run`](Self::run) whose node failed after it was sent gives
/// [`ClientError::MaybeReceived`]. A timeout is not retried. Admin calls
/// go to the admin address they are given.
///
/// Every request has a deadline: connecting 5 s, then the whole request
/// (answer included) [`DEFAULT_REQUEST_TIMEOUT`] (30 s), or
/// [`DEFAULT_RUN_TIMEOUT`] (10 min) for [`run`](Self::run) and
/// [`output`](Self::output), which wait for a run to end. A server that
/// does not answer in time gives [`ClientError::TimedOut`].
///
/// ```no_run
/// use hookwire::approval::ApprovalDecision;
/// use hookwire::durable::DurableClient;
/// # #[tokio::main]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = DurableClient::new("http://127.0.0.1:8080")?;
/// // Start a run; it pauses at a call that waits for approval.
/// let run = client.start("weekly-1", "Weekly PMO round", None).await?;
/// // The operator reads the waiting calls through the admin API.
/// let state = client.state("http://127.0.0.1:9070", "weekly-1").await?;
/// if let Some(pending) = state.and_then(|s| s.approvals.pending.first().cloned()) {
///     client.decide("weekly-1", &pending.id(), ApprovalDecision::Approve).await?;
/// }
/// println!("{}", client.output(&run).await?.text);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct DurableClient {
    ingresses: Ingresses,
    http: reqwest::Client,
    /// The agent's durable name: its sessions are `<name>Session`.
    agent: DurableName,
    /// The limit of one request.
    timeout: Duration,
    /// The limit of a wait for a run's output.
    run_timeout: Duration,
}

impl DurableClient {
    /// A client of the ingress at `ingress` (`http://127.0.0.1:8080`), for
    /// the agent served as `AgentSession` (a hand-written agent's default
    /// name); [`for_agent`](Self::for_agent) or [`named`](Self::named) for another.
    pub fn new(ingress: impl Into<String>) -> Result<Self, ClientError> {
        Self::with_ingresses([ingress])
    }

    /// A client of the ingresses at `ingresses` (each node's of a cluster,
    /// `http://node-1:8080`, ..), tried in turn as the type's docs say;
    /// [`ClientError::NoIngress`] if there is none.
    pub fn with_ingresses<I, S>(ingresses: I) -> Result<Self, ClientError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let urls: Vec<String> = ingresses.into_iter().map(Into::into).collect();
        let Some(first) = urls.first() else {
            return Err(ClientError::NoIngress);
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| ClientError::Unreachable {
                url: first.clone(),
                message: e.to_string(),
            })?;
        Ok(Self {
            ingresses: Ingresses::new(urls),
            http,
            agent: DurableName::new("Agent"),
            timeout: DEFAULT_REQUEST_TIMEOUT,
            run_timeout: DEFAULT_RUN_TIMEOUT,
        })
    }

    /// This client with one more ingress address, tried after the others.
    pub fn add_ingress(mut self, ingress: impl Into<String>) -> Self {
        self.ingresses = self.ingresses.with(ingress.into());
        self
    }

    /// The ingress addresses, in the order given.
    pub fn ingresses(&self) -> &[String] {
        self.ingresses.all()
    }

    /// The ingress address the next request goes to first (the one that
    /// answered last).
    pub fn ingress(&self) -> &str {
        self.ingresses.current()
    }

    /// Sets the limit of one request, its answer included (default
    /// [`DEFAULT_REQUEST_TIMEOUT`]): every call but [`run`](Self::run) and
    /// [`output`](Self::output).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the limit of a wait for a run's output, in [`run`](Self::run)
    /// and [`output`](Self::output) (default [`DEFAULT_RUN_TIMEOUT`]).
    pub fn with_run_timeout(mut self, timeout: Duration) -> Self {
        self.run_timeout = timeout;
        self
    }

    /// This client for the sessions of agent type `A`
    /// (`<A::DURABLE_NAME>Session`).
    pub fn for_agent<A: Agent>(self) -> Self {
        self.named(A::DURABLE_NAME)
    }

    /// This client for the sessions of the agent served under `name`
    /// (`<name>Session`).
    pub fn named(mut self, name: DurableName) -> Self {
        self.agent = name;
        self
    }

    /// The path of `handler` of `session`'s object on an ingress.
    fn session_path(&self, session: &str, handler: &str) -> String {
        format!("/{}/{session}/{handler}", self.agent.session_service())
    }

    /// Starts a run of `prompt` in `session` without waiting for it, and
    /// returns Restate's invocation id. With an `idempotency_key`, a second
    /// start with the same key is the same run.
    pub async fn start(
        &self,
        session: &str,
        prompt: &str,
        idempotency_key: Option<&str>,
    ) -> Result<String, ClientError> {
        check_session_id(session)?;
        let path = self.session_path(session, "run/send");
        let body = RunRequest {
            prompt: prompt.to_owned(),
        };
        let replay = if idempotency_key.is_some() {
            Replay::Safe
        } else {
            Replay::Once
        };
        let (answer, url): (Value, String) = self
            .send_ingress(replay, &path, self.timeout, |url| {
                let request = self.http.post(url).json(&body);
                match idempotency_key {
                    Some(key) => request.header("idempotency-key", key),
                    None => request,
                }
            })
            .await?;
        answer
            .get("invocationId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| ClientError::Decode {
                url,
                message: format!("no invocationId in {answer}"),
            })
    }

    /// Waits for the run started as `invocation` and returns its output.
    /// The id must be one a start returned (`inv_` and letters and
    /// digits): any other is refused before a request.
    pub async fn output(&self, invocation: &str) -> Result<RunOutput, ClientError> {
        let invocation = checked_invocation_id(invocation)?;
        let path = format!("/restate/invocation/{invocation}/attach");
        self.send_ingress(Replay::Safe, &path, self.run_timeout, |url| {
            self.http.get(url)
        })
        .await
        .map(|(output, _)| output)
    }

    /// Runs `prompt` in `session` and waits for the output.
    pub async fn run(&self, session: &str, prompt: &str) -> Result<RunOutput, ClientError> {
        check_session_id(session)?;
        let path = self.session_path(session, "run");
        let body = RunRequest {
            prompt: prompt.to_owned(),
        };
        self.send_ingress(Replay::Once, &path, self.run_timeout, |url| {
            self.http.post(url).json(&body)
        })
        .await
        .map(|(output, _)| output)
    }

    /// Decides the waiting call `id` of `session` (any decision but
    /// [`ApprovalDecision::Defer`], which the service refuses). The request
    /// carries an idempotency key of its own, the same on every node it is
    /// sent through: a copy that arrives twice decides once and both get
    /// the first one's answer. Another call of `decide` is another
    /// decision (refused with 409 once the call is decided).
    pub async fn decide(
        &self,
        session: &str,
        id: &str,
        decision: ApprovalDecision,
    ) -> Result<Decided, ClientError> {
        self.decide_by(session, id, decision, None).await
    }

    /// [`decide`](Self::decide), naming the person who decides (`who`):
    /// the call's [`ApprovalNote::who`](crate::approval::ApprovalNote::who)
    /// in the run's trace (`"who"` of the `approve` request).
    pub async fn decide_by(
        &self,
        session: &str,
        id: &str,
        decision: ApprovalDecision,
        who: Option<&str>,
    ) -> Result<Decided, ClientError> {
        check_session_id(session)?;
        let path = self.session_path(session, "approve");
        let body = ApproveRequest {
            id: id.to_owned(),
            decision,
            who: who.map(str::to_owned),
        };
        let key = fresh_key();
        self.send_ingress(Replay::Safe, &path, self.timeout, |url| {
            self.http
                .post(url)
                .header("idempotency-key", &key)
                .json(&body)
        })
        .await
        .map(|(decided, _)| decided)
    }

    /// Sends the request `build` makes for the URL of `path` on an
    /// ingress, through the ingresses in turn as [`Replay`] allows; the
    /// answer and the URL that gave it.
    async fn send_ingress<T: DeserializeOwned>(
        &self,
        replay: Replay,
        path: &str,
        limit: Duration,
        build: impl Fn(&str) -> reqwest::RequestBuilder,
    ) -> Result<(T, String), ClientError> {
        let several = self.ingresses.all().len() > 1;
        let mut last = ClientError::NoIngress;
        for (i, ingress) in self.ingresses.in_turn() {
            let url = format!("{ingress}{path}");
            match self.attempt(build(&url), &url, limit).await {
                Ok(answer) => {
                    self.ingresses.answered(i);
                    return Ok((answer, url));
                }
                Err(failure) => {
                    let (error, next) = next_step(replay, failure, several);
                    if !next {
                        return Err(error);
                    }
                    last = error;
                }
            }
        }
        Err(last)
    }

    async fn send<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<T, ClientError> {
        self.attempt(request, url, self.timeout)
            .await
            .map_err(|failure| match failure {
                Failure::NotSent(e) | Failure::MaybeReceived(e) | Failure::Final(e) => e,
            })
    }

    /// Sends `request`, which must be answered (in full) within `limit`.
    async fn attempt<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
        limit: Duration,
    ) -> Result<T, Failure> {
        let failed = |e: reqwest::Error| Failure::of(&e, url, limit);
        let response = request.timeout(limit).send().await.map_err(failed)?;
        let status = response.status();
        let text = response.text().await.map_err(failed)?;
        // An empty answer (a `PATCH` that succeeded) reads as `null`.
        let text = if text.trim().is_empty() {
            "null".to_owned()
        } else {
            text
        };
        if !status.is_success() {
            // Restate answers errors as {"message": ".."}.
            let message = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or(text);
            return Err(Failure::Final(ClientError::Rejected {
                url: url.to_owned(),
                status: status.as_u16(),
                message: clean(&message, ERROR_BODY_LIMIT),
            }));
        }
        serde_json::from_str(&text).map_err(|e| {
            Failure::Final(ClientError::Decode {
                url: url.to_owned(),
                message: clean(&format!("{e}: {text}"), ERROR_BODY_LIMIT),
            })
        })
    }
}

/// An invocation id as Restate writes them (`inv_` and base62): anything
/// else is refused before it reaches a URL or a query.
fn checked_invocation_id(id: &str) -> Result<&str, ClientError> {
    if !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        Ok(id)
    } else {
        Err(ClientError::InvalidInvocationId { id: id.to_owned() })
    }
}
