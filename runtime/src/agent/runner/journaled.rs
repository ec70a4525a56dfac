//! The loop's steps under a [`Journal`]: a model request, a tool call (its
//! hooks, approval bookkeeping and tool) and a round of injections, each
//! recorded as one step with what it changed in the session, and restored
//! from the record on a replay instead of running again.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::FutureExt;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::call::CallRecord;
use super::parent::{ChildHistories, ParentRun, PausedChildren};
use super::trace::micros;
use super::{Runner, TraceEvent};
use crate::agent::decl::Agent;
use crate::agent::inject::RequestHook;
use crate::agent::journal::{Journal, JournalError};
use crate::agent::lifecycle::LifecycleHooks;
use crate::approval::{ApprovalState, BoxFuture};
use crate::call::ToolCall;
use crate::lock;
use crate::model::{Message, ModelError, ModelRequest, ModelResponse};
use crate::toolset::{CallScope, ToolSet};

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

/// Runs `effect` as step `name` of `journal`, as JSON both ways.
async fn step<T: DeserializeOwned>(
    journal: &dyn Journal,
    name: &str,
    effect: BoxFuture<'_, Value>,
) -> Result<T, JournalError> {
    let value = journal.step(name, effect).await?;
    serde_json::from_value(value).map_err(|e| JournalError::new(name, e.to_string()))
}

/// A model's answer and the time since the step `started`, recorded (so
/// that a replay traces the same time).
pub(super) type Answer = (Result<ModelResponse, ModelError>, u64);

/// What a recorded tool call changed: its record, the approvals (a call
/// that now waits, a decision used), the child histories the session keeps,
/// the children's messages for the parent's history and the child runs
/// paused for approval.
type CallEntry = (
    CallRecord,
    ApprovalState,
    ChildHistories,
    Vec<Message>,
    PausedChildren,
);

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Asks the model inside one recorded step: a replay does not even call
    /// the model.
    pub(super) async fn journaled_answer(
        &self,
        journal: &dyn Journal,
        step: usize,
        started: Instant,
        request: ModelRequest<'_>,
    ) -> Result<Answer, JournalError> {
        let model = &self.model;
        let effect = async move {
            let answer = model.complete(request).await;
            serde_json::to_value((answer, micros(started.elapsed()))).unwrap_or(Value::Null)
        };
        self::step(journal, &format!("model {step}"), effect.boxed()).await
    }

    /// [`run_call`](Self::run_call) as one recorded step. A call with a
    /// timeout (the run's `tool_call_timeout`, a child agent's) first
    /// records when it starts, so that a restart does not give it a fresh
    /// timeout: the timer is durable.
    pub(super) async fn journaled_call(
        &self,
        journal: &dyn Journal,
        parent: &ParentRun,
        scope: &CallScope,
        call: ToolCall,
    ) -> Result<CallRecord, JournalError> {
        let name = format!("tool {} {}", call.name, call.id);
        let timed = self.settings.tool_call_timeout.is_some()
            || self.agent.tools().source(&call.name) == Some(crate::context::ToolSource::Agent);
        let started = if timed {
            let now = async {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default();
                Value::from(u64::try_from(now.as_millis()).unwrap_or(u64::MAX))
            };
            let ms: u64 = self::step(journal, &format!("start {name}"), now.boxed()).await?;
            Some(UNIX_EPOCH + Duration::from_millis(ms))
        } else {
            None
        };
        let effect = CALL_STARTED.scope(started, async {
            let record = self.run_call(scope, call).await;
            let merged = std::mem::take(&mut *lock(&parent.merged));
            let children = lock(&self.children).clone();
            let paused = lock(&self.paused_children).clone();
            let entry: CallEntry = (record, self.approvals.state(), children, merged, paused);
            serde_json::to_value(entry).unwrap_or(Value::Null)
        });
        let (record, approvals, children, merged, paused): CallEntry =
            self::step(journal, &name, effect.boxed()).await?;
        self.approvals.replace_state(approvals);
        *lock(&self.children) = children;
        *lock(&self.paused_children) = paused;
        lock(&parent.merged).extend(merged);
        Ok(record)
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
        let mut history = self.history.to_vec();
        let this = &*self;
        let effect = async move {
            let (traces, counter) = this.injection_round(&hooks, &mut history).await;
            serde_json::to_value((history, traces, counter)).unwrap_or(Value::Null)
        };
        let (history, traces, counter): (Vec<Message>, Vec<TraceEvent>, u64) =
            self::step(journal, name, effect.boxed()).await?;
        self.history = Arc::new(history);
        self.record_all(traces);
        self.injections = counter;
        Ok(())
    }
}
