//! The runs a console watches: each run's log of events (the run's own
//! stream, with the console's approval events between them), which the
//! page reads live and from its start.

use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::StreamExt;
use hookwire::agent::{Agent, EventKind, RunError, RunOutput, Runner, lifecycle::LifecycleHooks};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use crate::Shared;

/// A mutex's value; a poisoned lock is taken as it is (every critical
/// section of the console only pushes or reads).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One event of a run's log: the SSE event's name and its JSON data.
#[derive(Debug, Clone)]
pub(crate) struct LogEvent {
    /// The name (`trace`, `tool_started`, ..., or the console's own
    /// `approval`, `decided`, `withdrawn`).
    pub(crate) name: &'static str,
    /// The data, as JSON text.
    pub(crate) data: String,
}

/// What a run's log holds.
#[derive(Debug, Default)]
struct Log {
    events: Vec<LogEvent>,
    /// `running`, `waiting` (calls wait for a decision), then how it ended:
    /// `completed`, `stopped`, `paused`, `failed`.
    status: &'static str,
    /// Decision ids of the calls that wait.
    waiting: Vec<String>,
    /// Whether the run ended (no event comes after).
    ended: bool,
}

/// One run the console watches.
#[derive(Debug)]
pub(crate) struct Run {
    /// The console's id for it (`1`, `2`, ...): the page's links name it.
    pub(crate) id: String,
    /// The name it was registered with.
    pub(crate) name: String,
    /// The agent.
    pub(crate) agent: String,
    /// The session (the run's correlation id): the `session` of the keys of
    /// its calls, by which its approvals find it.
    pub(crate) session: String,
    log: Mutex<Log>,
    /// How many events the log has, for the streams that follow it.
    len: watch::Sender<usize>,
    /// Where the console's own events of a watched run go while it runs:
    /// its task records them between the run's events, so that a call's
    /// card follows the events the run sent before it asked.
    inbox: Mutex<Option<mpsc::UnboundedSender<Console>>>,
}

/// A console event (`approval`, `decided`, `withdrawn`) for the call `id`.
type Console = (&'static str, String, Value);

/// A run as `/api/runs` lists it.
#[derive(Debug, Serialize)]
pub(crate) struct RunSummary {
    id: String,
    name: String,
    agent: String,
    session: String,
    status: &'static str,
    pub(crate) waiting: Vec<String>,
    events: usize,
}

impl Run {
    /// A run, not started.
    pub(crate) fn new(id: String, name: String, agent: String, session: String) -> Self {
        Self {
            id,
            name,
            agent,
            session,
            log: Mutex::new(Log {
                status: "running",
                ..Log::default()
            }),
            len: watch::Sender::new(0),
            inbox: Mutex::new(None),
        }
    }

    /// Appends an event and wakes the streams that follow the log.
    pub(crate) fn push(&self, name: &'static str, data: String) {
        let len = {
            let mut log = lock(&self.log);
            log.events.push(LogEvent { name, data });
            log.events.len()
        };
        self.len.send_replace(len);
    }

    /// Sends a console event (`approval`, `decided`, `withdrawn`) to the
    /// run's log: through the run's task while it runs, else at once.
    pub(crate) fn push_approval(&self, name: &'static str, id: &str, data: Value) {
        let event = (name, id.to_owned(), data);
        let event = match &*lock(&self.inbox) {
            Some(inbox) => match inbox.send(event) {
                Ok(()) => return,
                Err(mpsc::error::SendError(event)) => event,
            },
            None => event,
        };
        self.record_approval(event);
    }

    /// Appends a console event and notes whether its call waits.
    fn record_approval(&self, (name, id, data): Console) {
        let id = id.as_str();
        {
            let mut log = lock(&self.log);
            log.waiting.retain(|w| w != id);
            if name == "approval" {
                log.waiting.push(id.to_owned());
            }
            if !log.ended {
                log.status = if log.waiting.is_empty() {
                    "running"
                } else {
                    "waiting"
                };
            }
        }
        self.push(name, data.to_string());
    }

    /// Sets the status a durable session's state says (`waiting`,
    /// `running`, or how its last run ended); the log goes on (the session
    /// may run again).
    #[cfg(feature = "durable")]
    pub(crate) fn set_status(&self, status: &'static str) {
        lock(&self.log).status = status;
    }

    /// Marks the run ended with `status`, and wakes the streams.
    fn end(&self, status: &'static str) {
        *lock(&self.inbox) = None;
        {
            let mut log = lock(&self.log);
            log.status = status;
            log.ended = true;
        }
        self.len.send_modify(|_| {});
    }

    /// The run as `/api/runs` lists it.
    pub(crate) fn summary(&self) -> RunSummary {
        let log = lock(&self.log);
        RunSummary {
            id: self.id.clone(),
            name: self.name.clone(),
            agent: self.agent.clone(),
            session: self.session.clone(),
            status: log.status,
            waiting: log.waiting.clone(),
            events: log.events.len(),
        }
    }

    /// The event at `at`, or whether the log ended before it (`Err(true)`)
    /// or may still grow (`Err(false)`).
    pub(crate) fn event(&self, at: usize) -> Result<LogEvent, bool> {
        let log = lock(&self.log);
        log.events.get(at).cloned().ok_or(log.ended)
    }

    /// A receiver woken when the log grows or ends.
    pub(crate) fn follow(&self) -> watch::Receiver<usize> {
        self.len.subscribe()
    }
}

/// A run the console watches, as [`Console::watch`](crate::Console::watch)
/// returns it: its id in the console, and its end.
#[derive(Debug)]
pub struct WatchedRun {
    id: String,
    /// The run's task: its end, `None` if its stream ended without one.
    done: tokio::task::JoinHandle<Option<Result<RunOutput, RunError>>>,
}

impl WatchedRun {
    /// The console's id for the run (its page's `/api/runs/<id>/events`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Waits for the run's end: its output, or why it failed.
    pub async fn finished(self) -> Result<RunOutput, crate::ConsoleError> {
        match self.done.await {
            Ok(Some(done)) => done.map_err(crate::ConsoleError::Run),
            Ok(None) | Err(_) => Err(crate::ConsoleError::RunTaskEnded),
        }
    }
}

impl Shared {
    /// Registers a run and starts it on a task of its own, recording its
    /// events as they come.
    pub(crate) fn watch<A, H>(
        self: &Arc<Self>,
        name: String,
        runner: Runner<A, H>,
        prompt: String,
    ) -> WatchedRun
    where
        A: Agent,
        H: LifecycleHooks + 'static,
    {
        let run = self.add_run(
            name,
            runner.agent().config().name.to_string(),
            runner.correlation_id().to_owned(),
        );
        let id = run.id.clone();
        let (inbox, mut console) = mpsc::unbounded_channel();
        *lock(&run.inbox) = Some(inbox);
        let done = tokio::spawn(async move {
            let mut stream = runner.into_stream(prompt);
            let mut result = None;
            loop {
                // The run's events first: a console event is recorded when
                // the run has sent nothing more (it waits).
                let event = tokio::select! {
                    biased;
                    event = stream.next() => event,
                    Some(event) = console.recv() => {
                        run.record_approval(event);
                        continue;
                    }
                };
                let Some(event) = event else { break };
                let data = serde_json::to_string(&event).unwrap_or_else(|e| {
                    serde_json::json!({"event": "error", "error": e.to_string()}).to_string()
                });
                run.push(event.kind.name(), data);
                if let EventKind::Done(done) = event.kind {
                    result = Some(done.map(|output| *output));
                }
            }
            while let Ok(event) = console.try_recv() {
                run.record_approval(event);
            }
            run.end(match &result {
                Some(Ok(output)) => output.status.as_str(),
                _ => "failed",
            });
            result
        });
        WatchedRun { id, done }
    }

    /// Adds a run to the list.
    pub(crate) fn add_run(&self, name: String, agent: String, session: String) -> Arc<Run> {
        let mut runs = lock(&self.runs);
        let run = Arc::new(Run::new((runs.len() + 1).to_string(), name, agent, session));
        runs.push(run.clone());
        run
    }

    /// The run of a session, if the console watches it.
    pub(crate) fn run_of_session(&self, session: &str) -> Option<Arc<Run>> {
        lock(&self.runs)
            .iter()
            .find(|r| r.session == session)
            .cloned()
    }

    /// The run with the console's id `id`.
    pub(crate) fn run(&self, id: &str) -> Option<Arc<Run>> {
        lock(&self.runs).iter().find(|r| r.id == id).cloned()
    }

    /// Every run, as `/api/runs` lists them.
    pub(crate) fn summaries(&self) -> Vec<RunSummary> {
        lock(&self.runs).iter().map(|r| r.summary()).collect()
    }
}
