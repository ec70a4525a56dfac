//! A console for hookwire runs and approvals, in the browser: an axum
//! [`Router`](axum::Router) you mount in your own service.
//!
//! It lists the runs it watches ([`Console::watch`]) with their events as
//! they happen (model turns, tool calls with their hook and approval
//! decisions, results, timings, usage), and each call waiting for approval
//! with its agent path, tool, the exact arguments the decision binds to,
//! the reason and the tool's approval metadata. A person approves, denies,
//! or approves with edited arguments; the decision reaches the run through
//! the [`Approver`](hookwire::approval::Approver) the run's approvals ask
//! ([`Console::approver`]), as any approver's does, and the call's trace
//! names the person ([`ApprovalNote::who`](hookwire::approval::ApprovalNote::who)).
//!
//! * `runs.rs`: the runs it watches and their event logs;
//! * `approver.rs`: [`ConsoleApprover`], and how a decision is given;
//! * `http.rs`: the routes, the token and CSRF checks, the page;
//! * `secret.rs`: the tokens, constant-time comparison, HTML escaping.
//!
//! Safe by default: [`Console::listen`] binds 127.0.0.1; every request
//! needs the console's token (the URL it prints carries it, as Jupyter's
//! does; the page keeps it in an `HttpOnly`, `SameSite=Strict` cookie);
//! a decision is a POST with the console's CSRF token; the page builds
//! every text of a model, a tool or the arguments with `textContent`, and
//! its content security policy allows no inline script and nothing from
//! elsewhere (every asset is embedded: it works offline).
//!
//! ```no_run
//! use hookwire::agent::{AgentConfig, BasicAgent, Runner};
//! use hookwire::approval::Approvals;
//! use hookwire::model::{ScriptedModel, Turn};
//! use hookwire_console::Console;
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let console = Console::new()?;
//! let approvals = Approvals::new(console.approver());
//! let agent = BasicAgent::new(AgentConfig::new("shop"), hookwire::Router::new());
//! let model = ScriptedModel::from_turns([Turn::text("hello")]);
//! let runner = Runner::new(agent, model).with_approvals(approvals);
//! let run = console.watch("shop", runner, "hi");
//! // Standalone on 127.0.0.1, or `console.router()` nested in your app.
//! let listening = console.listen(0).await?;
//! println!("console: {}", listening.url());
//! run.finished().await?;
//! # Ok(()) }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

use std::sync::{Arc, Mutex};

use hookwire::agent::{Agent, RunError, Runner, lifecycle::LifecycleHooks};
use hookwire::approval::ApprovalDecision;

mod approver;
#[cfg(feature = "durable")]
mod durable;
mod http;
mod runs;
mod secret;

pub use approver::ConsoleApprover;
#[cfg(feature = "durable")]
#[cfg_attr(docsrs, doc(cfg(feature = "durable")))]
pub use durable::{DurableSessions, WatchedSessions};
pub use http::Listening;
pub use runs::WatchedRun;

/// A console: the runs it watches, the calls waiting in it, and its
/// tokens. Cloning shares it.
#[derive(Clone)]
pub struct Console {
    shared: Arc<Shared>,
}

/// What the clones of a console share.
pub(crate) struct Shared {
    /// The token every request needs.
    pub(crate) token: String,
    /// The token every decision (a POST) needs besides.
    pub(crate) csrf: String,
    /// The name of the cookie that keeps the token (one per console, so
    /// that two consoles on one host do not replace each other's).
    pub(crate) cookie: String,
    /// The page's title.
    pub(crate) title: String,
    /// The runs, in the order they were registered.
    pub(crate) runs: Mutex<Vec<Arc<runs::Run>>>,
    /// The calls waiting for a decision.
    pub(crate) desk: Mutex<approver::Desk>,
    /// How many event streams are open, told when one ends.
    pub(crate) streams: tokio::sync::watch::Sender<usize>,
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Console")
            .field("title", &self.shared.title)
            .finish_non_exhaustive()
    }
}

/// Why the console could not do something.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConsoleError {
    /// The OS gave no random bytes for the tokens.
    #[error("the console's tokens need random bytes from the OS: {0}")]
    Random(String),
    /// The listener could not be bound.
    #[error("the console could not listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// A watched run failed.
    #[error("the run failed: {0}")]
    Run(RunError),
    /// A watched run's task ended without the run's end (it panicked or
    /// was cancelled).
    #[error("the run's task ended before the run did")]
    RunTaskEnded,
}

/// Why a decision was refused: nothing was decided.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecideError {
    /// No call waits under this id (its run ended, or it never waited).
    #[error(
        "no call waits for a decision under id `{0}` (its run ended or went on without it): \
         nothing was decided"
    )]
    NotWaiting(String),
    /// The call was decided already.
    #[error("call `{id}` was decided already ({how}): this decision is refused, nothing changed")]
    AlreadyDecided {
        /// The decision id.
        id: String,
        /// How and by whom (`denied by alice`).
        how: String,
    },
    /// The decision names nobody.
    #[error("a decision needs the name of the person who decides: nothing was decided")]
    NoName,
    /// `approve_with` without a JSON object of arguments.
    #[error(
        "`approve_with` needs the edited arguments as a JSON object (such as \
         `{{\"amount\": 5}}`): nothing was decided"
    )]
    EditNotAnObject,
    /// The durable session did not answer the decision (its ingress was
    /// unreachable, or it failed): the call is kept waiting in the console.
    #[error(
        "the durable session did not take the decision for call `{id}`: {message}; if the call \
         still waits, decide again"
    )]
    Unanswered {
        /// The decision id.
        id: String,
        /// What the ingress said, or why it could not be reached.
        message: String,
    },
    /// A decision the console does not know.
    #[error(
        "`{0}` is not a decision: give `approve`, `deny` or `approve_with`; nothing was decided"
    )]
    UnknownDecision(String),
}

impl Console {
    /// A console with fresh random tokens.
    pub fn new() -> Result<Self, ConsoleError> {
        let random = |n| secret::random_hex(n).map_err(|e| ConsoleError::Random(e.to_string()));
        let token = random(24)?;
        let csrf = random(24)?;
        let cookie = format!("hookwire_console_{}", random(4)?);
        Ok(Self {
            shared: Arc::new(Shared {
                token,
                csrf,
                cookie,
                title: "hookwire console".to_owned(),
                runs: Mutex::default(),
                desk: Mutex::default(),
                streams: tokio::sync::watch::Sender::new(0),
            }),
        })
    }

    /// The token every request needs (`?token=` on the page's URL, the
    /// cookie the page then keeps, or `Authorization: Bearer`).
    pub fn token(&self) -> &str {
        &self.shared.token
    }

    /// The approver to give a run's approvals
    /// (`Approvals::new(console.approver())`): every call they ask about
    /// waits in this console until a person decides it.
    pub fn approver(&self) -> ConsoleApprover {
        ConsoleApprover {
            shared: self.shared.clone(),
        }
    }

    /// Starts `runner` on `prompt` on a task of its own (a tokio runtime
    /// must be running) and lists it under `name`, with its events as they
    /// come. Give the runner approvals that ask [`approver`](Self::approver)
    /// for its calls to wait here.
    pub fn watch<A, H>(
        &self,
        name: impl Into<String>,
        runner: Runner<A, H>,
        prompt: impl Into<String>,
    ) -> WatchedRun
    where
        A: Agent,
        H: LifecycleHooks + 'static,
    {
        self.shared.watch(name.into(), runner, prompt.into())
    }

    /// Waits until no page follows a run any more (each stream of an
    /// ended run has sent its last event), or `limit` passed: call it
    /// before the process ends, so that the pages show the runs' ends.
    pub async fn drained(&self, limit: std::time::Duration) {
        let mut streams = self.shared.streams.subscribe();
        let _ = tokio::time::timeout(limit, streams.wait_for(|open| *open == 0)).await;
    }

    /// Gives a decision for the call waiting under `id` (a
    /// [`PendingApproval::id`](hookwire::approval::PendingApproval::id)),
    /// by `who`: what the page's buttons post. A call that no longer waits
    /// (decided already, or its run ended) is refused.
    pub async fn decide(
        &self,
        id: &str,
        who: impl Into<String>,
        decision: ApprovalDecision,
    ) -> Result<(), DecideError> {
        let who = who.into();
        if who.trim().is_empty() {
            return Err(DecideError::NoName);
        }
        self.shared.decide(id, who, decision).await
    }
}
