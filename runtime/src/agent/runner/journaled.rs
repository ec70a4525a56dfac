//! The loop's steps under a [`Journal`]: a model request, a tool call (its
//! hooks, approval bookkeeping and tool) and a round of injections, each
//! recorded as one step with what it changed in the session, and restored
//! from the record on a replay instead of running again.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::FutureExt;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::call::CallRecord;
use super::parent::{ChildHistories, PARENT, ParentRun, PausedChild};
use super::trace::micros;
use super::{Runner, TraceEvent};
use crate::BoxFuture;
use crate::agent::decl::Agent;
use crate::agent::inject::RequestHook;
use crate::agent::journal::{Journal, JournalError};
use crate::agent::lifecycle::LifecycleHooks;
use crate::approval::CallApprovals;
use crate::lock;
use crate::model::{Message, ModelError, ModelRequest, ModelResponse, Usage};
use crate::scope::CallScope;
use hookwire_chain::call::{ToolCall, ToolResult};
use hookwire_chain::toolset::ToolSet;

tokio::task_local! {
    /// When the journaled call being run first started (wall clock, as
    /// recorded): a call run again after a restart has only what is left
    /// of its timeout. `None` inside a child agent's own run.
    pub(crate) static CALL_STARTED: Option<SystemTime>;
}

/// What is left of `limit` for the call being run: all of it, unless the
/// call is journaled and started earlier (before a restart).
pub(crate) fn remaining(limit: Duration) -> Duration {
    match CALL_STARTED.try_with(|started| *started).ok().flatten() {
        Some(started) => limit.saturating_sub(started.elapsed().unwrap_or_default()),
        None => limit,
    }
}

/// Whether the journaled call being run started `limit` or more ago (its
/// recorded start plus `limit`, the deadline, has passed: the service was
/// down meanwhile). Such a call ends timed out without starting again.
/// `false` outside a journaled call, and when the recorded start is later
/// than this clock's now.
pub(crate) fn expired(limit: Duration) -> bool {
    CALL_STARTED
        .try_with(|started| *started)
        .ok()
        .flatten()
        .and_then(|started| started.elapsed().ok())
        .is_some_and(|elapsed| elapsed >= limit)
}

/// Runs `effect` as step `name` of `journal`, as JSON both ways.
async fn step<T: DeserializeOwned>(
    journal: &dyn Journal,
    name: &str,
    effect: BoxFuture<'_, Value>,
) -> Result<T, JournalError> {
    let value = journal.step(name, effect).await?;
    serde_json::from_value(value).map_err(|e| JournalError::new(name, e.to_string()))
}

/// A model's answer, the time since the step `started` (recorded, so that
/// a replay traces the same time), and when the answer was recorded.
pub(super) type Answer = (Result<ModelResponse, ModelError>, u64, Option<SystemTime>);

/// A model step's entry: the answer, the time since the step started, and
/// the wall clock (milliseconds since the epoch) when the answer came, in
/// one entry. That time is when the step's calls start (they follow the
/// answer), so a call with a timeout needs no entry of its own for it
/// (see [`Runner::journaled_calls`]). An entry recorded before the time was
/// kept has two fields; its third is `None`, and its calls record their
/// starts as they did then.
#[derive(serde::Serialize, serde::Deserialize)]
struct AnswerEntry(
    Result<ModelResponse, ModelError>,
    u64,
    #[serde(default)] Option<u64>,
);

/// Milliseconds since the epoch, now.
fn now_ms() -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(now.as_millis()).unwrap_or(u64::MAX)
}

/// What a recorded tool call changed: its record, its part of the
/// approvals (what waits at it, a decision used), the child histories it
/// kept, its children's messages for the parent's history and its child
/// run paused for approval; whether the record's trace event has the
/// record's result (kept once, in the record); and the tokens its child
/// agents used, by agent path.
type CallEntry = (
    CallRecord,
    CallApprovals,
    ChildHistories,
    Vec<Message>,
    Option<PausedChild>,
    bool,
    BTreeMap<String, Usage>,
);

/// The record with its trace event's result left out when it is the
/// record's own (the common case), so that the journal keeps a result
/// once; and whether it was left out.
fn once(mut record: CallRecord) -> (CallRecord, bool) {
    let shared = match &mut record.trace {
        TraceEvent::ToolCall(call) if call.result == record.result => {
            call.result = ToolResult::text("");
            true
        }
        _ => false,
    };
    (record, shared)
}

/// The record, with a result over `limit` bytes (serialized) replaced by
/// an error saying so: the journal would refuse to keep it, and a call
/// must end with an answer rather than fail every retry.
fn bounded(mut record: CallRecord, tool: &str, limit: Option<usize>) -> CallRecord {
    let Some(limit) = limit else {
        return record;
    };
    let bytes = serde_json::to_vec(&record.result).map_or(0, |v| v.len());
    if bytes <= limit {
        return record;
    }
    let error = ToolResult::error(format!(
        "the result of `{tool}` is {bytes} bytes; a durable session keeps tool results of at \
         most {limit} bytes (its journal and state hold each one): return less, or store the \
         data elsewhere and return a reference to it"
    ));
    if let TraceEvent::ToolCall(call) = &mut record.trace {
        call.result = error.clone();
        call.decision = "error".into();
    }
    record.result = error;
    record
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Asks the model inside one recorded step: a replay does not even call
    /// the model.
    pub(super) async fn journaled_answer(
        &self,
        journal: &dyn Journal,
        step: usize,
        started: Instant,
        request: ModelRequest<'_>,
        retries: &mut Vec<crate::model::RetryNote>,
    ) -> Result<Answer, JournalError> {
        let model = &self.model;
        let policy = &self.settings.model_retry;
        // The retries of a live call (a replay asks no model, so records
        // none), each sent to the stream as it starts.
        let scope = &self.scope;
        let effect = async move {
            let mut on_retry = |note: crate::model::RetryNote| {
                super::events::retry_started(scope, step, &note);
                retries.push(note);
            };
            let answer =
                crate::model::complete_with_retry(&**model, request, policy, &mut on_retry);
            // A live call in a `chat {model}` span (feature `otel`).
            #[cfg(feature = "otel")]
            let chat = super::genai::chat_span(&tracing::Span::current(), &**model, scope, request);
            #[cfg(feature = "otel")]
            let answer = tracing::Instrument::instrument(answer, chat.clone());
            let answer = answer.await;
            #[cfg(feature = "otel")]
            super::genai::chat_end(&chat, scope, &answer);
            let entry = AnswerEntry(answer, micros(started.elapsed()), Some(now_ms()));
            serde_json::to_value(entry).unwrap_or(Value::Null)
        };
        let AnswerEntry(answer, elapsed, at) =
            self::step(journal, &format!("model {step}"), effect.boxed()).await?;
        Ok((
            answer,
            elapsed,
            at.map(|ms| UNIX_EPOCH + Duration::from_millis(ms)),
        ))
    }

    /// The calls of a step, each as one recorded step, run concurrently
    /// in groups of `max_parallel` ([`Journal::steps`]); their records in
    /// call order. A call with a timeout (the run's `tool_call_timeout`, a
    /// child agent's) has a recorded start, so that a restart does not give
    /// it a fresh timeout: the timer is durable. The first group starts
    /// when the model's answer came (`answered`, recorded with the answer:
    /// no entry of its own); a later group, a resumed step's calls and the
    /// calls of an answer recorded without that time record each timed
    /// call's start as a step of its own. Each call records
    /// what it changed in the session (its part of the approvals, the child
    /// histories it kept, its paused child run, the messages its children
    /// merge); the records are applied in call order, so a replay leaves
    /// the session as the first run did, whatever the calls' timing.
    pub(super) async fn journaled_calls(
        &self,
        journal: &dyn Journal,
        parent: &ParentRun,
        scope: &CallScope,
        todo: Vec<(usize, ToolCall)>,
        mut answered: Option<SystemTime>,
    ) -> Result<Vec<(usize, CallRecord)>, JournalError> {
        let limit = journal.max_result_bytes();
        let mut records = Vec::with_capacity(todo.len());
        for group in todo.chunks(self.settings.max_parallel.max(1)) {
            let mut steps = Vec::with_capacity(group.len());
            let group_start = answered.take();
            for (_, call) in group {
                let started = match (self.timed(call), group_start) {
                    (false, _) => None,
                    (true, Some(at)) => Some(at),
                    (true, None) => Some(self.call_start(journal, call).await?),
                };
                let name = format!("tool {} {}", call.name, call.id);
                let (call, own) = (call.clone(), Arc::new(parent.for_call()));
                let effect = CALL_STARTED.scope(started, async move {
                    let (id, tool) = (call.id.clone(), call.name.clone());
                    let record = PARENT.scope(own.clone(), self.run_call(scope, &call)).await;
                    let record = bounded(record, &tool, limit);
                    let merged = std::mem::take(&mut *lock(&own.merged));
                    let children: ChildHistories = {
                        let all = lock(&self.session.children);
                        lock(&own.kept)
                            .iter()
                            .filter_map(|t| Some((t.clone(), all.get(t)?.clone())))
                            .collect()
                    };
                    let paused = lock(&self.session.paused).get(&*id).cloned();
                    let approvals = self.conv.approvals.at_call(scope, &id);
                    let (record, shared) = once(record);
                    let usage = std::mem::take(&mut *lock(&own.usage));
                    let entry: CallEntry =
                        (record, approvals, children, merged, paused, shared, usage);
                    serde_json::to_value(entry).unwrap_or(Value::Null)
                });
                steps.push((name, effect.boxed()));
            }
            let values = journal.steps(steps).await;
            for ((i, call), value) in group.iter().zip(values) {
                let name = format!("tool {} {}", call.name, call.id);
                let (mut record, approvals, children, merged, paused, shared, usage): CallEntry =
                    serde_json::from_value(value?)
                        .map_err(|e| JournalError::new(&name, e.to_string()))?;
                if shared && let TraceEvent::ToolCall(call) = &mut record.trace {
                    call.result = record.result.clone();
                }
                self.conv.approvals.restore_call(scope, &call.id, approvals);
                lock(&self.session.children).extend(children);
                match paused {
                    Some(child) => lock(&self.session.paused).insert(call.id.to_string(), child),
                    None => lock(&self.session.paused).remove(&*call.id),
                };
                lock(&parent.merged).extend(merged);
                parent.add_usage(usage);
                records.push((*i, record));
            }
        }
        Ok(records)
    }

    /// Whether `call` has a timeout: the run's `tool_call_timeout`, or a
    /// child agent's.
    fn timed(&self, call: &ToolCall) -> bool {
        self.settings.tool_call_timeout.is_some()
            || self.agent.tools().source(&call.name) == Some(crate::context::ToolSource::Agent)
    }

    /// When `call` starts, recorded as a step of its own.
    async fn call_start(
        &self,
        journal: &dyn Journal,
        call: &ToolCall,
    ) -> Result<SystemTime, JournalError> {
        let now = async { Value::from(now_ms()) };
        let name = format!("start tool {} {}", call.name, call.id);
        let ms: u64 = self::step(journal, &name, now.boxed()).await?;
        Ok(UNIX_EPOCH + Duration::from_millis(ms))
    }

    /// The injections of one event as one recorded step: their tool calls
    /// are side effects too. The step records the history they left (with
    /// a TTL's expiry in it, a wall-clock time that holds across restarts).
    pub(super) async fn journaled_injections(
        &mut self,
        journal: &dyn Journal,
        name: &str,
        hooks: Vec<RequestHook>,
    ) -> Result<(), JournalError> {
        let mut history = self.conv.history.to_vec();
        let this = &*self;
        let effect = async move {
            let (traces, counter) = this.injection_round(&hooks, &mut history).await;
            serde_json::to_value((history, traces, counter)).unwrap_or(Value::Null)
        };
        let (history, traces, counter): (Vec<Message>, Vec<TraceEvent>, u64) =
            self::step(journal, name, effect.boxed()).await?;
        self.conv.history = Arc::new(history);
        self.record_all(traces);
        self.conv.injections = counter;
        Ok(())
    }
}
