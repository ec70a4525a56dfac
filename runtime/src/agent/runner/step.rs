//! The loop, one step at a time, in three phases: ask the model
//! (`ask.rs`), run the step's calls and append their results
//! (`calls.rs`), and end the run when the step ends it (`finish.rs`:
//! completed, stopped or failed; paused here).

use std::sync::Arc;
use std::time::Instant;

use super::{PendingStep, RunError, RunOutput, RunStatus, Runner, caught, no_hooks};
use crate::agent::decl::Agent;
use crate::agent::journal::Journal;
use crate::agent::lifecycle::{LifecycleHooks, StepEnd};
use crate::model::ModelResponse;
use hookwire_chain::call::{CallStr, ToolCall, ToolResult};
use hookwire_chain::toolset::ToolSet;

/// A step whose calls are about to run: a new one, or a paused one resumed.
pub(super) struct Step {
    pub(super) step: usize,
    /// The model's answer; its `tool_calls` are the step's calls.
    pub(super) response: ModelResponse,
    /// The calls' results so far (a new step's are all to come; one slot
    /// inline, so a step with one call allocates none).
    pub(super) results: Results,
    pub(super) started: Instant,
    pub(super) span: tracing::Span,
    /// Under a journal, when the model's answer was recorded: the start of
    /// the step's first calls. `None` for a resumed step.
    pub(super) answered: Option<std::time::SystemTime>,
    /// Whether the step was resumed from a pause: its answer is in the
    /// history already (the paused state's last message) and the paused
    /// step stays the conversation's until this one settles. A new step's
    /// answer joins the history with its results, once its calls are done
    /// (see [`Runner::run_step`]).
    pub(super) resumed: bool,
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
pub(super) type Results = smallvec::SmallVec<[Option<ToolResult>; 1]>;

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// The loop: a paused step first if `resumed`, then step after step
    /// until the run ends.
    pub(super) async fn drive(
        &mut self,
        mut resumed: Option<PendingStep>,
        journal: Option<&dyn Journal>,
    ) -> Result<RunOutput, RunError> {
        let mut definitions = self.agent.tools().shared_definitions();
        // Remembered approval conditions are bound to the schemas this run
        // offers; those remembered with another schema lapse, noted.
        for lapsed in self.conv.approvals.bind_schemas(&self.scope, &definitions) {
            self.record(super::TraceEvent::ApprovalLapsed {
                tool: lapsed.tool,
                condition: lapsed.condition.condition,
                note: lapsed.note,
            });
        }
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
                    resumed: true,
                },
                None => {
                    if let Err(e) = self.check_refused(&mut definitions) {
                        return self.fail(e).await;
                    }
                    match self.ask_model(&definitions, journal).await {
                        AfterModel::Calls(step) => step,
                        AfterModel::Again => continue,
                        AfterModel::Ended(out) => return out,
                    }
                }
            };
            if let Some(out) = self.run_step(step, journal).await {
                return out;
            }
        }
    }

    /// Runs the step's calls that have no result yet, then appends the
    /// model's answer and their results to the history; `Some` when the
    /// run ends with the step (paused or stopped).
    ///
    /// A step is all or nothing for the session: a new step's answer joins
    /// the history only here, together with its results, so a step that
    /// does not get here (its run dropped or cancelled with its stream,
    /// failed or panicked) leaves the history as it was before the step,
    /// with no call unanswered. A resumed step leaves its pause as it was
    /// (the paused step stays until the step settles), to resume again.
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
            resumed,
        } = step;
        let calls: &[ToolCall] = &response.tool_calls;
        // An imported state may be inconsistent: one slot per call.
        results.resize(calls.len(), None);
        let (records, merged, usage) = match self
            .run_calls(step, calls, &results, span, journal, answered)
            .await
        {
            Ok(done) => done,
            Err(e) => return Some(self.fail(e.into()).await),
        };
        self.conv.add_child_usage(usage);
        let (stopped, paused) = self.settle(records, &mut results);
        if paused && stopped.is_none() {
            let pending = self.conv.approvals.pending_within(&self.scope);
            if !resumed {
                // A paused state's history ends with the answer whose calls
                // wait.
                Arc::make_mut(&mut self.conv.history).push(response.to_message());
            }
            self.conv.pending = Some(PendingStep {
                step,
                calls: response.tool_calls.clone(),
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
        if resumed {
            self.conv.pending = None;
        }
        let named: smallvec::SmallVec<[(CallStr, CallStr); 1]> = response
            .tool_calls
            .iter()
            .map(|call| (call.id.clone(), call.name.clone()))
            .collect();
        let none = no_hooks(&(self.agent.lifecycle_hooks(), &self.hooks));
        // With no lifecycle hook there is no `step_end` hook to show the
        // answer with its calls: they move into the history, uncopied.
        let answer = match (resumed, none) {
            (true, _) => None,
            (false, true) => Some(response.take_message()),
            (false, false) => Some(response.to_message()),
        };
        let tool_messages = self.append_results(answer, named, results, merged);
        if !none {
            let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
            // The hooks may edit the history: they see the step's results
            // as they joined it.
            let tool_results = self.conv.history[tool_messages].to_vec();
            let _ = caught(
                "step_end",
                hooks.step_end(&mut StepEnd {
                    agent: &self.agent.config().name,
                    step,
                    response: &response,
                    tool_results: &tool_results,
                    elapsed: started.elapsed(),
                    history: Arc::make_mut(&mut self.conv.history),
                    run_metadata: &self.session.metadata,
                }),
            )
            .await;
        }
        match stopped {
            Some((reason, hook)) => Some(self.finish_stopped("pre_tool_use", reason, hook).await),
            None => None,
        }
    }

    /// Takes the records of a step's calls, in call order: their results
    /// (a pending call has none yet) and their trace events; the first
    /// stop one of them asked for, and whether one waits for approval.
    fn settle(&mut self, records: super::calls::Records, results: &mut Results) -> (Stopped, bool) {
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
        (stopped, paused)
    }
}
