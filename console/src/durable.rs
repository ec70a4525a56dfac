//! Durable sessions in the console (feature `durable`): the sessions of a
//! durable agent, read through Restate's admin API
//! ([`DurableClient::sessions`]), each listed as a run whose events are its
//! trace as the session's state records it, and each call a paused session
//! waits on shown as a card; a person's decision goes to the session's
//! `approve` handler through the ingress
//! ([`DurableClient::decide_by`]), the API every other approver of a
//! durable session uses, with the person's name.

use std::collections::{HashMap, HashSet};

use std::sync::{Arc, Weak};
use std::time::Duration;

use hookwire::agent::{RunState, TraceEvent};
use hookwire::approval::{ApprovalDecision, CallKey};
use hookwire::durable::DurableClient;
use serde_json::{Value, json};

use crate::approver::{Reply, Waiting, said, shown};
use crate::runs::{Run, lock};
use crate::{Console, DecideError, Shared};

/// The durable sessions a console lists: a durable agent's client (its
/// ingresses and durable name, as
/// [`DurableClient::for_agent`] sets it) and the admin API that serves
/// their states.
///
/// ```no_run
/// # async fn demo(console: hookwire_console::Console) -> Result<(), Box<dyn std::error::Error>> {
/// use hookwire::durable::DurableClient;
/// use hookwire_console::DurableSessions;
/// let client = DurableClient::new("http://127.0.0.1:8080")?;
/// let watched = console.watch_sessions(DurableSessions::new(client, "http://127.0.0.1:9070"));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct DurableSessions {
    client: Arc<DurableClient>,
    admin: String,
    every: Duration,
}

impl DurableSessions {
    /// The sessions of `client`'s agent, their states read from the admin
    /// API at `admin` (`http://127.0.0.1:9070`) every half second.
    pub fn new(client: DurableClient, admin: impl Into<String>) -> Self {
        Self {
            client: Arc::new(client),
            admin: admin.into(),
            every: Duration::from_millis(500),
        }
    }

    /// Reads the states every `every` instead.
    #[must_use]
    pub fn every(mut self, every: Duration) -> Self {
        self.every = every;
        self
    }
}

/// The task that follows a console's durable sessions, from
/// [`Console::watch_sessions`]. It ends with the console (when every clone
/// of it is dropped) or at [`stop`](Self::stop).
#[derive(Debug)]
pub struct WatchedSessions {
    task: tokio::task::JoinHandle<()>,
    /// Why the last read failed; `None` once one succeeds.
    failed: Arc<std::sync::Mutex<Option<String>>>,
}

impl WatchedSessions {
    /// Why the last read of the sessions failed (the admin API unreachable,
    /// a state that does not read), `None` when it succeeded: for a health
    /// check. The reads go on either way.
    pub fn last_error(&self) -> Option<String> {
        lock(&self.failed).clone()
    }

    /// Stops following the sessions: the runs listed so far stay, as they
    /// were last read, and their cards can no longer be decided.
    pub fn stop(self) {
        self.task.abort();
    }
}

impl Console {
    /// Lists the sessions of a durable agent, read every so often from the
    /// admin API (a session shows once its first run paused or ended:
    /// Restate keeps a session's state from then): each is a run named by
    /// its session id, whose events are its run's trace and whose cards
    /// are the calls it waits on. A decision goes to the session's
    /// `approve` handler with the person's name
    /// ([`DurableClient::decide_by`]): a call decided elsewhere first is
    /// refused there, and its card goes when the session's state says so.
    /// A read that fails is tried again at the next
    /// ([`WatchedSessions::last_error`] says why it failed).
    ///
    /// Call it inside a tokio runtime: the reads run on a task of their
    /// own.
    pub fn watch_sessions(&self, sessions: DurableSessions) -> WatchedSessions {
        let shared = Arc::downgrade(&self.shared);
        let failed = Arc::default();
        WatchedSessions {
            task: tokio::spawn(follow(shared, sessions, Arc::clone(&failed))),
            failed,
        }
    }
}

/// Where a durable session's call is decided: the session's `approve`
/// handler, through the client's ingresses.
pub(crate) struct Gate {
    client: Arc<DurableClient>,
    session: String,
}

impl Gate {
    /// Sends the decision; what the ingress said when it refused it.
    pub(crate) async fn decide(
        &self,
        id: &str,
        who: &str,
        decision: ApprovalDecision,
    ) -> Result<(), hookwire::durable::ClientError> {
        self.client
            .decide_by(&self.session, id, decision, Some(who))
            .await
            .map(drop)
    }
}

impl Shared {
    /// Sends a person's decision for a durable session's call (taken off
    /// the desk by [`decide`](Self::decide)) to the session.
    pub(crate) async fn decide_durable(
        &self,
        id: &str,
        run: Arc<Run>,
        gate: Gate,
        who: String,
        decision: ApprovalDecision,
    ) -> Result<(), DecideError> {
        let label = said(&decision);
        if let Err(refused) = gate.decide(id, &who, decision).await {
            return Err(self.durable_refused(id, run, gate, refused));
        }
        lock(&self.desk)
            .decided
            .insert(id.to_owned(), format!("{label} by {who}"));
        let shown = json!({"id": id, "decision": label, "who": who});
        run.push_approval("decided", id, shown);
        Ok(())
    }

    /// What a durable session's refusal of a decision says. The card stays
    /// on the desk whatever the refusal: the session's state says when the
    /// call no longer waits, and by whom it was decided
    /// ([`update`](Self::update) takes the card off then).
    pub(crate) fn durable_refused(
        &self,
        id: &str,
        run: Arc<Run>,
        gate: Gate,
        refused: hookwire::durable::ClientError,
    ) -> DecideError {
        let reply = Reply::Durable(gate);
        {
            let mut desk = lock(&self.desk);
            desk.decided.remove(id);
            desk.waiting.insert(id.to_owned(), Waiting { run, reply });
        }
        match refused.status() {
            Some(409) => DecideError::AlreadyDecided {
                id: id.to_owned(),
                how: "by another approver of the durable session".to_owned(),
            },
            Some(404) => DecideError::NotWaiting(id.to_owned()),
            _ => DecideError::Unanswered {
                id: id.to_owned(),
                message: refused.to_string(),
            },
        }
    }
}

/// What the console has shown of one session.
struct Seen {
    run: Arc<Run>,
    /// The trace events sent to the page (of the session's current run).
    trace: Vec<Value>,
    /// The cards shown and not yet gone: their calls, by decision id.
    cards: HashMap<String, CallKey>,
}

/// Reads the sessions' states until the console is gone; why the last
/// read failed goes to `failed`.
async fn follow(
    shared: Weak<Shared>,
    sessions: DurableSessions,
    failed: Arc<std::sync::Mutex<Option<String>>>,
) {
    let mut seen: HashMap<String, Seen> = HashMap::new();
    loop {
        let read = sessions.client.sessions(&sessions.admin).await;
        *lock(&failed) = read.as_ref().err().map(ToString::to_string);
        let Some(shared) = shared.upgrade() else {
            return;
        };
        for (session, state) in read.into_iter().flatten() {
            let seen = seen.entry(session.clone()).or_insert_with(|| Seen {
                run: shared.add_run(session.clone(), state.agent.clone(), session.clone()),
                trace: Vec::new(),
                cards: HashMap::new(),
            });
            let gate = || Gate {
                client: sessions.client.clone(),
                session: session.clone(),
            };
            shared.update(seen, &state, gate);
        }
        drop(shared);
        tokio::time::sleep(sessions.every).await;
    }
}

impl Shared {
    /// Shows what a session's state says that the page has not seen: its
    /// new trace events, the calls that began to wait, the calls that no
    /// longer wait (decided elsewhere: by whom, from the state), and its
    /// status.
    fn update(&self, seen: &mut Seen, state: &RunState, gate: impl Fn() -> Gate) {
        let trace: Vec<Value> = state
            .trace
            .iter()
            .map(|event| trace_event(&state.agent, event))
            .collect();
        // The trace of a later run starts afresh: sent from its start.
        let from = if trace.starts_with(&seen.trace) {
            seen.trace.len()
        } else {
            0
        };
        for event in &trace[from..] {
            seen.run.push("trace", event.to_string());
        }
        seen.trace = trace;

        let pending = &state.approvals.pending;
        let ids: HashSet<String> = pending.iter().map(|p| p.key.id()).collect();
        for call in pending {
            let id = call.key.id();
            if seen.cards.insert(id.clone(), call.key.clone()).is_some()
                || lock(&self.desk).decided.contains_key(&id)
            {
                continue;
            }
            let card = shown(
                &call.key,
                call.arguments.clone(),
                &call.reason,
                call.metadata.as_ref(),
            );
            let reply = Reply::Durable(gate());
            let run = seen.run.clone();
            lock(&self.desk)
                .waiting
                .insert(id.clone(), Waiting { run, reply });
            seen.run.push_approval("approval", &id, card);
        }
        let gone: Vec<String> = seen
            .cards
            .keys()
            .filter(|id| !ids.contains(*id))
            .cloned()
            .collect();
        for id in gone {
            if let Some(key) = seen.cards.remove(&id) {
                self.gone_elsewhere(&seen.run, &id, &key, state);
            }
        }
        seen.run.set_status(status(state));
    }

    /// A call that no longer waits and that the console did not decide:
    /// its card goes, with the decision the session's state records.
    fn gone_elsewhere(&self, run: &Run, id: &str, key: &CallKey, state: &RunState) {
        let mut desk = lock(&self.desk);
        if desk.waiting.remove(id).is_none() {
            return;
        }
        let Some((label, who)) = decided_in(state, id, key) else {
            drop(desk);
            run.push_approval("withdrawn", id, json!({"id": id}));
            return;
        };
        desk.decided
            .insert(id.to_owned(), format!("{label} by {who}"));
        drop(desk);
        let shown = json!({"id": id, "decision": label, "who": who});
        run.push_approval("decided", id, shown);
    }
}

/// How the call `id` (`key`) was decided, and by whom, as the session's
/// state records it: its resolved approvals until the run used them, then
/// the approval note of the call's record in the trace (a call of the
/// session's root agent).
fn decided_in(state: &RunState, id: &str, key: &CallKey) -> Option<(&'static str, String)> {
    let nobody = || "another approver".to_owned();
    if let Some(resolved) = state
        .approvals
        .resolved
        .iter()
        .find(|r| r.call.key.id() == id)
    {
        let who = resolved.who.clone().unwrap_or_else(nobody);
        return Some((said(&resolved.decision), who));
    }
    if !key.path.is_empty() {
        return None;
    }
    let note = state.trace.iter().rev().find_map(|event| match event {
        TraceEvent::ToolCall(call)
            if call.step == key.step && *call.id == *key.id && *call.tool == *key.tool =>
        {
            call.approvals.last()
        }
        _ => None,
    })?;
    let label = match (note.approved, note.edited) {
        (true, true) => "approved with edited arguments",
        (true, false) => "approved",
        (false, _) => "denied",
    };
    Some((label, note.who.clone().unwrap_or_else(nobody)))
}

/// A trace event of a session's root agent as the page reads a run's
/// `trace` events (the agent, its path, and the event's fields).
fn trace_event(agent: &str, event: &TraceEvent) -> Value {
    let mut value = serde_json::to_value(event).unwrap_or_else(|e| json!({"error": e.to_string()}));
    if let Value::Object(fields) = &mut value {
        fields.insert("agent".to_owned(), json!(agent));
        fields.insert("path".to_owned(), json!([]));
        fields.insert("event".to_owned(), json!("trace"));
    }
    value
}

/// The status a session's state says: `waiting` while calls wait, else
/// how its last run ended (its trace's `finished`), else `running`.
fn status(state: &RunState) -> &'static str {
    if !state.approvals.pending.is_empty() {
        return "waiting";
    }
    let ended = state.trace.iter().rev().find_map(|event| match event {
        TraceEvent::Finished { status, .. } => Some(status.as_ref()),
        _ => None,
    });
    match ended {
        Some("completed") => "completed",
        Some("stopped") => "stopped",
        Some("paused") => "paused",
        Some("failed") => "failed",
        _ => "running",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::Duration;

    use hookwire::durable::DurableClient;

    use crate::{Console, DurableSessions};

    #[tokio::test]
    async fn a_failed_read_is_told_and_listed_nothing() {
        // Nothing listens on port 9 of the loopback.
        let client = DurableClient::new("http://127.0.0.1:9").unwrap();
        let console = Console::new().unwrap();
        let watched = console.watch_sessions(
            DurableSessions::new(client, "http://127.0.0.1:9").every(Duration::from_millis(10)),
        );
        let told = async {
            loop {
                if let Some(why) = watched.last_error() {
                    break why;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        let why = tokio::time::timeout(Duration::from_secs(60), told)
            .await
            .unwrap();
        assert!(why.contains("127.0.0.1:9/query"), "{why}");
        assert!(console.shared.summaries().is_empty());
        watched.stop();
    }
}
