//! The last phase of a step, when the run ends: a final answer (and the
//! `stop` hooks that may force the loop on), a stop, a failure; the
//! run's output.

use std::sync::Arc;
use std::time::Instant;

use super::step::AfterModel;
use super::{RunError, RunOutput, RunStatus, Runner, TraceEvent, caught, no_hooks};
use crate::agent::decl::Agent;
use crate::agent::inject::HookEvent;
use crate::agent::journal::Journal;
use crate::agent::lifecycle::{
    AgentFailed, ExecutionEnd, LifecycleHooks, StepEnd, StopDecision, StopEvent,
};
use crate::model::{Message, ModelResponse};

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
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
            Arc::make_mut(&mut self.conv.history).push(response.to_message());
        }
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        let none = no_hooks(&hooks);
        let decision = if none {
            Ok(StopDecision::Allow)
        } else {
            caught(
                "stop",
                hooks.stop(&mut StopEvent {
                    agent: &agent_name,
                    answer: &response.text,
                    step,
                    forced_continues: self.conv.forced,
                    history: Arc::make_mut(&mut self.conv.history),
                    run_metadata: &self.session.metadata,
                }),
            )
            .await
        }
        .unwrap_or(StopDecision::Allow);
        if !none {
            let _ = caught(
                "step_end",
                hooks.step_end(&mut StepEnd {
                    agent: &agent_name,
                    step,
                    response: &response,
                    tool_results: &[],
                    elapsed: started.elapsed(),
                    history: Arc::make_mut(&mut self.conv.history),
                    run_metadata: &self.session.metadata,
                }),
            )
            .await;
        }
        drop(hooks);
        match decision {
            StopDecision::Continue(message)
                if self.conv.forced < self.settings.max_forced_continues =>
            {
                self.conv.forced += 1;
                self.record(TraceEvent::Hook {
                    event: "stop".into(),
                    decision: "continue".into(),
                    reason: message.clone(),
                });
                Arc::make_mut(&mut self.conv.history).push(Message::user(message));
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

    /// Ends the run stopped by a hook at `event`.
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

    /// Ends the run with `status`: the trace's last event, the
    /// `execution_end` hooks, the run's output.
    pub(super) async fn finish(
        &mut self,
        status: RunStatus,
        text: String,
    ) -> Result<RunOutput, RunError> {
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
                    history: &self.conv.history,
                    steps: self.conv.steps,
                    run_metadata: &self.session.metadata,
                }),
            )
            .await;
        }
        drop(hooks);
        let usage = self.conv.total_usage();
        // A root run's path is its agent's name, shared: nothing is
        // allocated for it.
        let agent_path = match self.scope.path() {
            [] => self.scope.agent_arc(),
            path => Arc::from(super::events::agent_path(path, self.scope.agent())),
        };
        Ok(RunOutput {
            status,
            text,
            trace: Arc::clone(&self.conv.trace),
            usage,
            own_usage: self.conv.usage,
            agent_path,
            child_usage: self.conv.child_usage.clone(),
            steps: self.conv.steps,
            max_display_instances: self.agent.config().max_display_instances,
            structured: match status_completed {
                true => self.conv.typed.value.take(),
                false => None,
            },
        })
    }

    /// The run's tokens by agent path (`pmo/ny` for its own, when it is
    /// the child `ny` of `pmo`; `pmo/ny/audit` for its child's, ...), for
    /// its parent.
    pub(crate) fn usage_by_path(&self) -> std::collections::BTreeMap<String, crate::model::Usage> {
        let mut by_path = self.conv.child_usage.clone();
        let own = super::events::agent_path(self.scope.path(), self.scope.agent());
        *by_path.entry(own).or_default() += self.conv.usage;
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
                run_metadata: &self.session.metadata,
            }),
        )
        .await;
        let _ = caught(
            "execution_end",
            hooks.execution_end(&ExecutionEnd {
                agent: self.scope.agent(),
                status: "failed",
                history: &self.conv.history,
                steps: self.conv.steps,
                run_metadata: &self.session.metadata,
            }),
        )
        .await;
        Err(error)
    }
}
