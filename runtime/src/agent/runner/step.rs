//! The loop, one step at a time: ask the model, run the step's calls
//! concurrently, append their results, and end the run (completed,
//! stopped, paused or failed).

use super::LinkExt;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures_util::StreamExt;
use tracing::Instrument;

use super::call::CallRecord;
use super::parent::{PARENT, ParentRun};
use super::trace::micros;
use super::{
    EventKind, PendingStep, RunError, RunOutput, RunStatus, Runner, TraceEvent, caught, no_hooks,
};
use crate::agent::decl::Agent;
use crate::agent::inject::{HookEvent, SystemClock, run_injection};
use crate::agent::journal::{Journal, JournalError};
use crate::agent::lifecycle::{
    AgentFailed, ExecutionEnd, Flow, LifecycleHooks, StepEnd, StepStart, StopDecision, StopEvent,
};
use crate::approval::PENDING_REASON;
use crate::lock;
use crate::model::{Message, ModelRequest, ModelResponse};
use hookwire_chain::call::{ToolCall, ToolResult};
use hookwire_chain::tool::ToolDefinition;
use hookwire_chain::toolset::ToolSet;
use hookwire_chain::view::StepView;

/// A step whose calls are about to run: a new one, or a paused one resumed.
pub(super) struct Step {
    step: usize,
    /// The model's answer; its `tool_calls` are the step's calls.
    response: ModelResponse,
    /// The calls' results so far (a new step's are all to come; one slot
    /// inline, so a step with one call allocates none).
    results: Results,
    started: Instant,
    span: tracing::Span,
    /// Under a journal, when the model's answer was recorded: the start of
    /// the step's first calls. `None` for a resumed step.
    answered: Option<std::time::SystemTime>,
    /// Where in the history the step's calls are, when they were moved
    /// there from `response` (no copy: a run with no lifecycle hook has no
    /// `step_end` hook to show the response with its calls); `None` when
    /// `response` has them.
    calls_at: Option<usize>,
}

/// What asking the model led to.
pub(super) enum AfterModel {
    /// The model called tools: run them.
    Calls(Step),
    /// A `stop` hook forced the loop on: ask the model again.
    Again,
    /// The run ended.
    Ended(Result<RunOutput, RunError>),
}

/// A stop of the step: the reason and the hook that decided.
type Stopped = Option<(String, Option<String>)>;

/// A step's results by call (`None`: still to run).
type Results = smallvec::SmallVec<[Option<ToolResult>; 1]>;

/// The records of a step's calls, with their index (one inline).
type Records = smallvec::SmallVec<[(usize, CallRecord); 1]>;

/// What a step's calls left: their records in call order, the messages
/// children merge into the history, and the children's tokens by agent
/// path.
type StepDone = (
    Records,
    Vec<Message>,
    std::collections::BTreeMap<String, crate::model::Usage>,
);

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    pub(super) async fn inject(
        &mut self,
        event: HookEvent,
        journal: Option<&dyn Journal>,
    ) -> Result<(), JournalError> {
        // Most agents have none: nothing is collected then.
        if !self
            .agent
            .config()
            .request_hooks
            .iter()
            .any(|h| h.event == event)
        {
            return Ok(());
        }
        // Boxed: a round of injections runs tool calls, and its future
        // (about 5 KB) would otherwise be part of every run's future,
        // moved with it and boxed with it when the run is streamed.
        Box::pin(self.inject_round(event, journal)).await
    }

    /// [`inject`](Self::inject) for an agent with request hooks for `event`.
    async fn inject_round(
        &mut self,
        event: HookEvent,
        journal: Option<&dyn Journal>,
    ) -> Result<(), JournalError> {
        let hooks: Vec<_> = self
            .agent
            .config()
            .request_hooks
            .iter()
            .filter(|h| h.event == event)
            .cloned()
            .collect();
        if let Some(journal) = journal {
            let name = format!("inject {event:?}");
            return self.journaled_injections(journal, &name, hooks).await;
        }
        let mut history = std::mem::take(Arc::make_mut(&mut self.history));
        let (traces, counter) = self.injection_round(&hooks, &mut history).await;
        self.history = Arc::new(history);
        self.record_all(traces);
        self.injections = counter;
        Ok(())
    }

    /// Runs `hooks` against `history`: each injection's call takes the
    /// one path of every tool call ([`run_call`](Self::run_call): the
    /// lifecycle hooks, the approval gate, the chain). An injection cannot
    /// pause the run: a call that would wait for a person is skipped, and
    /// nothing of it stays waiting. Its trace events and the injection
    /// counter after it (ids count on from the session's, exported with
    /// its state).
    pub(super) async fn injection_round(
        &self,
        hooks: &[crate::agent::inject::RequestHook],
        history: &mut Vec<Message>,
    ) -> (Vec<TraceEvent>, u64) {
        let scope = self.scope.at_step(self.steps);
        let mut traces = Vec::with_capacity(hooks.len());
        let mut counter = self.injections;
        for hook in hooks {
            counter += 1;
            let scope = &scope;
            let action = run_injection(
                hook,
                self.agent.tools(),
                history,
                self.clock.as_deref().unwrap_or(&SystemClock),
                counter,
                |call| async move {
                    let id = call.id.clone();
                    let record = self.run_call(scope, &call).await;
                    if record.pending {
                        self.approvals.forget_at(scope, &id);
                        return ToolResult::error(
                            "approval pending: an injection cannot wait for a person",
                        );
                    }
                    match record.stopped {
                        Some((reason, _)) => ToolResult::error(format!("stopped: {reason}")),
                        None => record.result,
                    }
                },
            )
            .await;
            traces.push(TraceEvent::Injection {
                tool: hook.resolve_name(self.agent.tools()),
                action,
            });
        }
        (traces, counter)
    }

    /// The loop: a paused step first if `resumed`, then step after step
    /// until the run ends.
    pub(super) async fn drive(
        &mut self,
        mut resumed: Option<PendingStep>,
        journal: Option<&dyn Journal>,
    ) -> Result<RunOutput, RunError> {
        let definitions = self.agent.tools().shared_definitions();
        loop {
            let step = match resumed.take() {
                Some(p) => Step {
                    span: tracing::info_span!(
                        "hookwire.step",
                        agent = %self.agent.config().name,
                        step = p.step,
                        resumed = true
                    ),
                    // Its calls still to run waited for approval: tools it
                    // offered.
                    step: p.step,
                    // `calls` equals `response.tool_calls` (in process, and
                    // checked when a state is imported).
                    response: p.response,
                    results: Results::from_vec(p.results),
                    started: Instant::now(),
                    answered: None,
                    calls_at: None,
                },
                None => match self.ask_model(&definitions, journal).await {
                    AfterModel::Calls(step) => step,
                    AfterModel::Again => continue,
                    AfterModel::Ended(out) => return out,
                },
            };
            if let Some(out) = self.run_step(step, journal).await {
                return out;
            }
        }
    }

    /// Starts a step: the step limit, the `step_start` hooks, the model's
    /// answer. A final answer goes to [`Self::final_answer`].
    async fn ask_model(
        &mut self,
        definitions: &[ToolDefinition],
        journal: Option<&dyn Journal>,
    ) -> AfterModel {
        let agent_name = self.scope.agent_arc();
        if self.steps >= self.settings.max_steps {
            return AfterModel::Ended(self.fail(RunError::StepLimit(self.steps)).await);
        }
        // Once the run's tokens (with its children's, and its parent's
        // when it is a child) are used up, no model call is made.
        if let Some(budget) = self.scope.budget()
            && budget.spent() >= budget.limit
        {
            let error = RunError::UsageLimit {
                limit: budget.limit,
                used: budget.spent(),
            };
            return AfterModel::Ended(self.fail(error).await);
        }
        let step = self.steps;
        self.steps += 1;
        let started = Instant::now();
        let span = tracing::info_span!("hookwire.step", agent = %agent_name, step);
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        let flow = if no_hooks(&hooks) {
            Ok(Flow::Continue)
        } else {
            caught(
                "step_start",
                hooks.step_start(&mut StepStart {
                    agent: &agent_name,
                    step,
                    history: Arc::make_mut(&mut self.history),
                }),
            )
            .await
        }
        .unwrap_or_else(|m| Flow::Stop(format!("a lifecycle hook panicked in step_start: {m}")));
        drop(hooks);
        if let Flow::Stop(reason) = flow {
            return AfterModel::Ended(self.finish_stopped("step_start", reason, None).await);
        }
        // What the tools say about this step: those not available are not
        // offered (and a call to one is refused), and the instructions of
        // those that are join the system prompt. Nothing is allocated when
        // every tool is available and none has an instruction.
        let offer = self.agent.tools().step_offer(
            definitions,
            &StepView::new(&agent_name, step, &self.history, self.scope.session()),
        );
        self.unavailable = offer.unavailable;
        let offered = self.with_output_tool(offered(definitions, &self.unavailable));
        let system = system_prompt(&self.agent.config().instruction, &offer.instructions);
        // When someone streams the run, the model's text goes to the stream
        // as it arrives.
        let deltas = self.scope.events().map(|_| {
            let scope = self.scope.clone();
            move |chunk: &str| {
                scope.emit(|| EventKind::TextDelta {
                    step,
                    text: chunk.to_owned(),
                });
            }
        });
        let mut request = ModelRequest::new(&agent_name, &system, &self.history, &offered);
        if let Some(deltas) = &deltas {
            request = request.with_on_text(deltas);
        }
        let output = self.typed.current.clone();
        if let Some(check) = &output {
            request = request.with_output(&check.spec);
        }
        let mut retries = Vec::new();
        let (answer, elapsed_us, answered) = match journal {
            None => {
                let mut on_retry = |note| retries.push(note);
                let answer = crate::model::complete_with_retry(
                    &*self.model,
                    request,
                    &self.settings.model_retry,
                    &mut on_retry,
                );
                // In a `chat {model}` span, the step's child (feature
                // `otel`; the step's own span when nobody takes it).
                #[cfg(feature = "otel")]
                let chat = super::genai::chat_span(&span, &*self.model, &self.scope, request);
                #[cfg(feature = "otel")]
                let inner = if chat.is_disabled() { &span } else { &chat };
                #[cfg(not(feature = "otel"))]
                let inner = &span;
                // Nobody collects spans: the answer is not moved into an
                // `Instrumented`.
                let answer = if inner.is_disabled() {
                    answer.await
                } else {
                    answer.instrument(inner.clone()).await
                };
                #[cfg(feature = "otel")]
                super::genai::chat_end(&chat, &self.scope, &answer);
                (answer, micros(started.elapsed()), None)
            }
            Some(journal) => match self
                .journaled_answer(journal, step, started, request, &mut retries)
                .instrument(span.clone())
                .await
            {
                Ok(answer) => answer,
                Err(e) => return AfterModel::Ended(self.fail(e.into()).await),
            },
        };
        if !retries.is_empty() {
            self.record_all(retries.into_iter().map(|note| TraceEvent::ModelRetry {
                step,
                attempt: note.attempt,
                delay_ms: note.delay_ms,
                reason: note.reason,
            }));
        }
        let mut response = match answer {
            Ok(r) => r,
            Err(e) => return AfterModel::Ended(self.fail(RunError::Model(e)).await),
        };
        unique_call_ids(step, &mut response.tool_calls);
        // The history, the calls and the trace share each call's arguments
        // (parsed once).
        for call in &mut response.tool_calls {
            call.arguments.share();
        }
        drop(deltas);
        self.usage += response.usage;
        if let Some(budget) = self.scope.budget() {
            budget.spend(response.usage.total());
        }
        self.scope.emit(|| EventKind::Usage {
            step,
            usage: response.usage,
            total: self.usage,
        });
        self.record(TraceEvent::Model {
            step,
            text: response.text.clone(),
            tool_calls: response.tool_calls.iter().map(|c| c.name.clone()).collect(),
            elapsed_us,
        });
        // A run that asks no typed output does not call `typed_answer`.
        if let Some(output) = output {
            drop(output);
            if let Some(after) = self.typed_answer(step, &response, started, journal).await {
                return after;
            }
        }
        if response.tool_calls.is_empty() {
            return self
                .final_answer(step, response, started, journal, true)
                .await;
        }
        let results = smallvec::smallvec![None; response.tool_calls.len()];
        let history = Arc::make_mut(&mut self.history);
        let calls_at = if no_hooks(&(self.agent.lifecycle_hooks(), &self.hooks)) {
            history.push(response.take_message());
            Some(history.len() - 1)
        } else {
            history.push(response.to_message());
            None
        };
        AfterModel::Calls(Step {
            step,
            response,
            results,
            started,
            span,
            answered,
            calls_at,
        })
    }

    /// The model answered without calls: the `stop` hooks may force the
    /// loop on (up to `max_forced_continues`), else the run completes.
    /// `add_to_history`: whether the answer joins the history as the
    /// model's message (a typed answer given through the final-answer tool
    /// is there already, as the call and its result).
    pub(super) async fn final_answer(
        &mut self,
        step: usize,
        response: ModelResponse,
        started: Instant,
        journal: Option<&dyn Journal>,
        add_to_history: bool,
    ) -> AfterModel {
        let agent_name = self.scope.agent_arc();
        if add_to_history {
            Arc::make_mut(&mut self.history).push(response.to_message());
        }
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        let none = no_hooks(&hooks);
        let decision = if none {
            Ok(StopDecision::Allow)
        } else {
            caught(
                "stop",
                hooks.stop(&StopEvent {
                    agent: &agent_name,
                    answer: &response.text,
                    step,
                    forced_continues: self.forced,
                }),
            )
            .await
        }
        .unwrap_or(StopDecision::Allow);
        if !none {
            let _ = caught(
                "step_end",
                hooks.step_end(&StepEnd {
                    agent: &agent_name,
                    step,
                    response: &response,
                    tool_results: &[],
                    elapsed: started.elapsed(),
                }),
            )
            .await;
        }
        drop(hooks);
        match decision {
            StopDecision::Continue(message) if self.forced < self.settings.max_forced_continues => {
                self.forced += 1;
                self.record(TraceEvent::Hook {
                    event: "stop".into(),
                    decision: "continue".into(),
                    reason: message.clone(),
                });
                Arc::make_mut(&mut self.history).push(Message::user(message));
                return AfterModel::Again;
            }
            StopDecision::Continue(message) => {
                tracing::warn!(
                    target: "hookwire::audit",
                    agent = %agent_name,
                    reason = %message,
                    "stop hook wanted to continue past the loop guard; ending the run"
                );
            }
            _ => {}
        }
        if let Err(e) = self.inject(HookEvent::OnCompletion, journal).await {
            return AfterModel::Ended(self.fail(e.into()).await);
        }
        AfterModel::Ended(self.finish(RunStatus::Completed, response.text).await)
    }

    /// Runs the step's calls that have no result yet and appends the
    /// results to the history; `Some` when the run ends with the step
    /// (paused or stopped).
    async fn run_step(
        &mut self,
        step: Step,
        journal: Option<&dyn Journal>,
    ) -> Option<Result<RunOutput, RunError>> {
        let Step {
            step,
            mut response,
            mut results,
            started,
            span,
            answered,
            calls_at,
        } = step;
        // The calls, read where they are (the history's are shared: this
        // is a reference count, released before the results join it).
        let history = calls_at.map(|_| Arc::clone(&self.history));
        let calls: &[ToolCall] = match (calls_at, &history) {
            (Some(at), Some(history)) => match history.get(at) {
                Some(Message::Assistant { tool_calls, .. }) => tool_calls,
                _ => &[],
            },
            _ => &response.tool_calls,
        };
        // An imported state may be inconsistent: one slot per call.
        results.resize(calls.len(), None);
        let (records, merged, usage) = match self
            .run_calls(step, calls, &results, span, journal, answered)
            .await
        {
            Ok(done) => done,
            Err(e) => return Some(self.fail(e.into()).await),
        };
        // Most steps run no child agent: an empty map is not walked (its
        // `IntoIter` costs about 100 instructions even then).
        if !usage.is_empty() {
            for (path, used) in usage {
                *self.child_usage.entry(path).or_default() += used;
            }
        }
        let mut stopped: Stopped = None;
        let mut paused = false;
        for (i, record) in records {
            if record.pending {
                paused = true;
            } else {
                results[i] = Some(record.result);
            }
            if stopped.is_none() {
                stopped = record.stopped;
            }
            self.record_all(record.progress);
            self.record(record.trace);
        }
        if paused && stopped.is_none() {
            let pending = self.approvals.pending_within(&self.scope);
            let calls = calls.to_vec();
            if calls_at.is_some() {
                // An exported state's response has its calls.
                response.tool_calls = calls.clone();
            }
            self.pending = Some(PendingStep {
                step,
                calls,
                response,
                results: results.into_vec(),
            });
            return Some(
                self.finish(RunStatus::Paused { pending }, String::new())
                    .await,
            );
        }
        // The step is over: nothing of it (or of the children it ran) waits
        // any more, and no decision given for it may outlive it.
        self.forget_waiting();
        let named: smallvec::SmallVec<[(Arc<str>, Arc<str>); 1]> = calls
            .iter()
            .map(|call| (call.id.clone(), call.name.clone()))
            .collect();
        drop(history);
        let tool_messages = self.append_results(named, results, merged);
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        if !no_hooks(&hooks) {
            let _ = caught(
                "step_end",
                hooks.step_end(&StepEnd {
                    agent: &self.agent.config().name,
                    step,
                    response: &response,
                    tool_results: &self.history[tool_messages],
                    elapsed: started.elapsed(),
                }),
            )
            .await;
        }
        drop(hooks);
        match stopped {
            Some((reason, hook)) => Some(self.finish_stopped("pre_tool_use", reason, hook).await),
            None => None,
        }
    }

    /// Runs the calls that have no result yet, concurrently (at most
    /// `max_parallel` at once), inside the [`PARENT`] that child agents
    /// read; their records in call order, and the messages children merge
    /// into the history. Under a journal each call is one recorded step
    /// ([`journaled_calls`](Self::journaled_calls)), in groups of
    /// `max_parallel`.
    async fn run_calls(
        &self,
        step: usize,
        calls: &[ToolCall],
        results: &[Option<ToolResult>],
        span: tracing::Span,
        journal: Option<&dyn Journal>,
        answered: Option<std::time::SystemTime>,
    ) -> Result<StepDone, JournalError> {
        let mut todo = calls
            .iter()
            .enumerate()
            .filter(|(i, _)| results[*i].is_none());
        let parent = Arc::new(ParentRun {
            history: self.history.clone(),
            model: self.model.clone(),
            merged: Mutex::new(Vec::new()),
            session: self.session.clone(),
            approvals: self.approvals.clone(),
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
        let max = self.settings.max_parallel.max(1);
        let scope = &scope;
        let all = async move {
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
        };
        let records: Records = PARENT.scope(parent.clone(), all).instrument(span).await;
        // The step's calls are done: release the parent's view of the
        // history, so that appending to it afterwards copies nothing.
        let merged = std::mem::take(&mut *lock(&parent.merged));
        let usage = std::mem::take(&mut *lock(&parent.usage));
        drop(parent);
        Ok((records, merged, usage))
    }

    /// Appends the step's results (a call still waiting is denied) and the
    /// children's merged messages to the history; where the tool messages
    /// are in it (they are not copied for the `step_end` hooks).
    fn append_results(
        &mut self,
        calls: smallvec::SmallVec<[(Arc<str>, Arc<str>); 1]>,
        results: Results,
        merged: Vec<Message>,
    ) -> std::ops::Range<usize> {
        let history = Arc::make_mut(&mut self.history);
        let start = history.len();
        history.reserve(calls.len() + merged.len());
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

    pub(super) async fn finish_stopped(
        &mut self,
        event: &str,
        reason: String,
        hook: Option<String>,
    ) -> Result<RunOutput, RunError> {
        self.record(TraceEvent::Hook {
            event: event.to_owned(),
            decision: "stop".into(),
            reason: reason.clone(),
        });
        self.finish(RunStatus::Stopped { reason, hook }, String::new())
            .await
    }

    async fn finish(&mut self, status: RunStatus, text: String) -> Result<RunOutput, RunError> {
        let status_completed = status == RunStatus::Completed;
        let shown = match &status {
            RunStatus::Stopped { reason, .. } => reason.clone(),
            _ => text.clone(),
        };
        self.record(TraceEvent::Finished {
            status: status.as_str().into(),
            text: shown,
        });
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        if !no_hooks(&hooks) {
            let _ = caught(
                "execution_end",
                hooks.execution_end(&ExecutionEnd {
                    agent: self.scope.agent(),
                    status: status.as_str(),
                    history: &self.history,
                    steps: self.steps,
                }),
            )
            .await;
        }
        drop(hooks);
        let mut usage = self.usage;
        for used in self.child_usage.values() {
            usage += *used;
        }
        // A root run's path is its agent's name, shared: nothing is
        // allocated for it.
        let agent_path = match self.scope.path() {
            [] => self.scope.agent_arc(),
            path => Arc::from(super::events::agent_path(path, self.scope.agent())),
        };
        Ok(RunOutput {
            status,
            text,
            trace: Arc::clone(&self.trace),
            usage,
            own_usage: self.usage,
            agent_path,
            child_usage: self.child_usage.clone(),
            steps: self.steps,
            max_display_instances: self.agent.config().max_display_instances,
            structured: match status_completed {
                true => self.typed.value.take(),
                false => None,
            },
        })
    }

    /// The run's tokens by agent path (`pmo/ny` for its own, when it is
    /// the child `ny` of `pmo`; `pmo/ny/audit` for its child's, ...), for
    /// its parent.
    pub(crate) fn usage_by_path(&self) -> std::collections::BTreeMap<String, crate::model::Usage> {
        let mut by_path = self.child_usage.clone();
        let own = super::events::agent_path(self.scope.path(), self.scope.agent());
        *by_path.entry(own).or_default() += self.usage;
        by_path
    }

    pub(super) async fn fail(&mut self, error: RunError) -> Result<RunOutput, RunError> {
        tracing::warn!(
            target: "hookwire::audit",
            agent = %self.scope.agent(),
            error = %error,
            "agent run failed"
        );
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        let _ = caught(
            "agent_failed",
            hooks.agent_failed(&AgentFailed {
                agent: self.scope.agent(),
                error: &error,
            }),
        )
        .await;
        let _ = caught(
            "execution_end",
            hooks.execution_end(&ExecutionEnd {
                agent: self.scope.agent(),
                status: "failed",
                history: &self.history,
                steps: self.steps,
            }),
        )
        .await;
        Err(error)
    }
}

/// Makes the call ids of one model answer unique, as they arrive: an empty
/// id becomes `call_<step>_<index>`, and an id used by an earlier call of
/// the same answer gets `_<index>` appended (again until it is free). The
/// loop identifies calls by these ids (their results, their approvals), so
/// an id the model repeats must never make one call run for another. The
/// history keeps the ids as rewritten, so the model reads each result
/// against the call it belongs to.
fn unique_call_ids(step: usize, calls: &mut [ToolCall]) {
    // A few calls (the common case) are compared with the earlier ones,
    // which allocates nothing; many go through a set.
    let few = calls.len() <= 16;
    let mut seen = std::collections::HashSet::new();
    for index in 0..calls.len() {
        let (earlier, rest) = calls.split_at_mut(index);
        let call = &mut rest[0];
        if call.id.is_empty() {
            call.id = format!("call_{step}_{index}").into();
        }
        while if few {
            earlier.iter().any(|c| c.id == call.id)
        } else {
            !seen.insert(call.id.clone())
        } {
            call.id = format!("{}_{index}", call.id).into();
        }
    }
}

/// The definitions offered in a step: all of them, borrowed, unless some
/// tool is not available.
fn offered<'a>(
    definitions: &'a [ToolDefinition],
    unavailable: &[String],
) -> std::borrow::Cow<'a, [ToolDefinition]> {
    if unavailable.is_empty() {
        return std::borrow::Cow::Borrowed(definitions);
    }
    definitions
        .iter()
        .filter(|d| !unavailable.contains(&d.name))
        .cloned()
        .collect()
}

/// The agent's instruction, then each tool's instruction for the step, one
/// paragraph each (borrowed when there is none).
fn system_prompt<'a>(
    instruction: &'a str,
    extra: &[std::borrow::Cow<'static, str>],
) -> std::borrow::Cow<'a, str> {
    if extra.is_empty() {
        return std::borrow::Cow::Borrowed(instruction);
    }
    let mut system = instruction.to_owned();
    for text in extra {
        if !system.is_empty() {
            system.push_str("\n\n");
        }
        system.push_str(text);
    }
    std::borrow::Cow::Owned(system)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookwire_chain::call::ToolArgs;

    fn ids(calls: &[ToolCall]) -> Vec<&str> {
        calls.iter().map(|c| &*c.id).collect()
    }

    #[test]
    fn a_few_call_ids_are_made_unique_as_many_are() {
        let answer = ["a", "a", "", "a_1", "b", "a", "a_1"];
        let call = |id: &str| ToolCall::new(id, "t", ToolArgs::from_json("{}"));
        // A few: compared with each other.
        let mut few: Vec<ToolCall> = answer.iter().map(|id| call(id)).collect();
        unique_call_ids(2, &mut few);
        assert_eq!(
            ids(&few),
            ["a", "a_1", "call_2_2", "a_1_3", "b", "a_5", "a_1_6"]
        );
        // Many (over 16): through a set, with the same ids.
        let mut many: Vec<ToolCall> = answer.iter().map(|id| call(id)).collect();
        many.extend((0..20).map(|i| call(&format!("z{i}"))));
        unique_call_ids(2, &mut many);
        assert_eq!(ids(&many[..answer.len()]), ids(&few));
    }
}
