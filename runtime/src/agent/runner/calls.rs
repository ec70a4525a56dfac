//! The second phase of a step: run its calls (concurrently, at most
//! `max_parallel` at once, or each as a recorded step under a journal),
//! inside the [`PARENT`] its child agents read, and append their results
//! to the history.

use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use tracing::Instrument;

use super::Runner;
use super::call::CallRecord;
use super::parent::{PARENT, ParentRun};
use super::step::Results;
use crate::agent::decl::Agent;
use crate::agent::journal::{Journal, JournalError};
use crate::agent::lifecycle::LifecycleHooks;
use crate::approval::PENDING_REASON;
use crate::context::ToolSource;
use crate::lock;
use crate::model::Message;
use crate::scope::CallScope;
use hookwire_chain::call::{CallStr, ToolCall, ToolResult};
use hookwire_chain::toolset::ToolSet;

/// The records of a step's calls, with their index (one inline).
pub(super) type Records = smallvec::SmallVec<[(usize, CallRecord); 1]>;

/// What a step's calls left: their records in call order, the messages
/// children merge into the history, and the children's tokens by agent
/// path.
type StepDone = (
    Records,
    Vec<Message>,
    std::collections::BTreeMap<String, crate::model::Usage>,
);

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Runs the calls that have no result yet, concurrently (at most
    /// `max_parallel` at once), inside the [`PARENT`] that child agents
    /// read; their records in call order, and the messages children merge
    /// into the history. Under a journal each call is one recorded step
    /// ([`journaled_calls`](Self::journaled_calls)), in groups of
    /// `max_parallel`.
    pub(super) async fn run_calls(
        &self,
        step: usize,
        calls: &[ToolCall],
        results: &[Option<ToolResult>],
        span: tracing::Span,
        journal: Option<&dyn Journal>,
        answered: Option<std::time::SystemTime>,
    ) -> Result<StepDone, JournalError> {
        let todo = calls
            .iter()
            .enumerate()
            .filter(|(i, _)| results[*i].is_none());
        // Only a child agent and a `post_tool_use` hook (the messages it
        // adds) use the parent's run: a step that calls no child and whose
        // agent has no lifecycle hooks runs its calls without it (no record
        // of the parent to build, no task-local scope to enter). With one,
        // its scope is entered even if an outer run's is there: what this
        // step's calls add must never reach another run.
        let tools = self.agent.tools();
        let calls_a_child = calls.iter().zip(results).any(|(call, result)| {
            result.is_none() && tools.source(&call.name) == Some(ToolSource::Agent)
        });
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        if journal.is_none() && !calls_a_child && super::no_hooks(&hooks) {
            let scope = self.scope.at_step(step);
            let records = self.run_all(&scope, todo).instrument(span).await;
            return Ok((records, Vec::new(), Default::default()));
        }
        let parent = Arc::new(ParentRun {
            history: self.conv.history.clone(),
            model: self.model.clone(),
            merged: Mutex::new(Vec::new()),
            session: self.session.clone(),
            approvals: self.conv.approvals.clone(),
            kept: Mutex::new(Vec::new()),
            usage: Mutex::default(),
        });
        let scope = self.scope.at_step(step);
        if let Some(journal) = journal {
            let todo = todo.map(|(i, c)| (i, c.clone())).collect();
            let records = self
                .journaled_calls(journal, &parent, &scope, todo, answered)
                .instrument(span)
                .await?
                .into();
            let merged = std::mem::take(&mut *lock(&parent.merged));
            let usage = std::mem::take(&mut *lock(&parent.usage));
            return Ok((records, merged, usage));
        }
        let all = self.run_all(&scope, todo);
        let records: Records = PARENT.scope(parent.clone(), all).instrument(span).await;
        // The step's calls are done: release the parent's view of the
        // history, so that appending to it afterwards copies nothing.
        let merged = std::mem::take(&mut *lock(&parent.merged));
        let usage = std::mem::take(&mut *lock(&parent.usage));
        drop(parent);
        Ok((records, merged, usage))
    }

    /// Runs `todo` (calls with their index) concurrently, at most
    /// `max_parallel` at once; their records in call order.
    async fn run_all<'c>(
        &self,
        scope: &CallScope,
        mut todo: impl Iterator<Item = (usize, &'c ToolCall)>,
    ) -> Records {
        let max = self.settings.max_parallel.max(1);
        match (todo.next(), todo.next()) {
            // One call (the common case) needs no list and no stream to
            // drive it.
            (Some((i, one)), None) => smallvec::smallvec![(i, self.run_call(scope, one).await)],
            (first, second) => {
                let todo: Vec<(usize, ToolCall)> = first
                    .into_iter()
                    .chain(second)
                    .chain(todo)
                    .map(|(i, c)| (i, c.clone()))
                    .collect();
                let run_one = move |(i, call): (usize, ToolCall)| async move {
                    (i, self.run_call(scope, &call).await)
                };
                futures_util::stream::iter(todo)
                    .map(run_one)
                    .buffered(max)
                    .collect::<Vec<_>>()
                    .await
                    .into()
            }
        }
    }

    /// Appends the model's `answer` (a resumed step's is there already),
    /// the step's results (a call still waiting is denied) and the
    /// children's merged messages to the history; where the tool messages
    /// are in it (they are not copied for the `step_end` hooks).
    pub(super) fn append_results(
        &mut self,
        answer: Option<Message>,
        calls: smallvec::SmallVec<[(CallStr, CallStr); 1]>,
        results: Results,
        merged: Vec<Message>,
    ) -> std::ops::Range<usize> {
        let history = Arc::make_mut(&mut self.conv.history);
        history.reserve(usize::from(answer.is_some()) + calls.len() + merged.len());
        history.extend(answer);
        let start = history.len();
        for ((id, name), result) in calls.into_iter().zip(results) {
            let result = result.unwrap_or_else(|| {
                ToolResult::error(format!("tool call denied: {PENDING_REASON}"))
            });
            history.push(Message::tool(id, name, result));
        }
        let end = history.len();
        history.extend(merged);
        start..end
    }
}
