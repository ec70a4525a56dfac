//! A run from its start: `run` and `resume`, their span, and what a run
//! does before its first step (the typed output, the run's links, the
//! `execution_start` and `user_prompt_submit` hooks, the prompt, the
//! request-start injections).

use std::sync::Arc;

use tracing::Instrument;

use super::{
    Budget, EventTx, LinkExt, RunError, RunOutput, Runner, TraceEvent, caught, genai, no_hooks,
};
use crate::agent::decl::Agent;
use crate::agent::inject::HookEvent;
use crate::agent::journal::Journal;
use crate::agent::lifecycle::{ExecutionStart, Flow, LifecycleHooks, PromptSubmit};
use crate::model::Message;

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Runs one user message to the end.
    ///
    /// A run is a transaction over the session, step by step: dropping
    /// this future cancels the run where it is, and a step that does not
    /// end (dropped, failed, panicked) is rolled back: its answer joins the
    /// history only with its results, so every tool call in the history is
    /// answered and the next run goes on (see [`RunStream`](super::RunStream)).
    pub async fn run(&mut self, prompt: impl Into<String>) -> Result<RunOutput, RunError> {
        self.run_inner(prompt.into(), None, None).await
    }

    /// [`run`](Self::run) with each model request, tool call and round of
    /// injections recorded in `journal` as one step, or replayed from it
    /// (see [`Journal`]). Tool calls of one step run concurrently in groups
    /// of `max_parallel` ([`Journal::steps`]), each recorded on its own.
    pub async fn run_journaled(
        &mut self,
        prompt: impl Into<String>,
        journal: &dyn Journal,
    ) -> Result<RunOutput, RunError> {
        self.run_inner(prompt.into(), Some(journal), None).await
    }

    /// The span of a run (`resumed` or not): `hookwire.run`, with
    /// OpenTelemetry's `invoke_agent` names under the feature `otel`.
    fn run_span(&self, resumed: bool) -> tracing::Span {
        tracing::info_span!(
            "hookwire.run",
            agent = %self.agent.config().name,
            correlation_id = %self.scope.correlation_id(),
            resumed = resumed.then_some(true),
            // OpenTelemetry's names (feature `otel`; see `genai`).
            otel.name = genai::on(|| format!("invoke_agent {}", self.agent.config().name)),
            otel.kind = genai::INTERNAL,
            otel.status_code = tracing::field::Empty,
            gen_ai.operation.name = genai::INVOKE_AGENT,
            gen_ai.agent.name = genai::on(|| &*self.agent.config().name),
            gen_ai.provider.name = genai::on(|| self.model.provider()),
            gen_ai.request.model = genai::on(|| genai::request_model(&*self.model)),
            gen_ai.conversation.id = genai::on(|| self.scope.correlation_id()),
            gen_ai.usage.input_tokens = tracing::field::Empty,
            gen_ai.usage.output_tokens = tracing::field::Empty,
            error.type = tracing::field::Empty,
        )
    }

    /// A run, streamed to `events` when it is set. A child agent's run
    /// (whose scope has a path) keeps the events and the usage budget it
    /// inherited from its parent's call.
    pub(super) async fn run_inner(
        &mut self,
        prompt: String,
        journal: Option<&dyn Journal>,
        events: Option<EventTx>,
    ) -> Result<RunOutput, RunError> {
        let span = self.run_span(false);
        #[cfg(feature = "otel")]
        let ended = span.clone();
        let out = self.start(prompt, journal, events).instrument(span).await;
        #[cfg(feature = "otel")]
        genai::run_end(&ended, &out);
        out
    }

    /// A run in its span: its start (the run's links and counters, the
    /// opening hooks, the prompt, the request-start injections), then the
    /// loop.
    async fn start(
        &mut self,
        mut prompt: String,
        journal: Option<&dyn Journal>,
        events: Option<EventTx>,
    ) -> Result<RunOutput, RunError> {
        if self.conv.pending.is_some() {
            // A typed entry point's check is for this run only.
            self.conv.typed.clear_next();
            return Err(RunError::Paused);
        }
        self.check_names()?;
        self.begin_run(events);
        if let Some(stopped) = self.open(&mut prompt).await {
            return stopped;
        }
        for text in self.agent.warnings() {
            tracing::warn!(
                target: "hookwire::audit",
                agent = %self.scope.agent(),
                warning = %text,
                "agent warning"
            );
            self.record(TraceEvent::Warning { text });
        }
        self.record(TraceEvent::Prompt {
            text: prompt.clone(),
        });
        Arc::make_mut(&mut self.conv.history).push(Message::user(prompt));
        if let Err(e) = self.inject(HookEvent::OnRequestStart, journal).await {
            return self.fail(e.into()).await;
        }
        self.drive(None, journal).await
    }

    /// Sets up a new run: its typed output, its links (events, usage
    /// budget), a fresh trace and counters, nothing waiting.
    fn begin_run(&mut self, events: Option<EventTx>) {
        if self.conv.typed.has_next() || self.agent.config().output.is_some() {
            let tools = hookwire_chain::toolset::ToolSet::shared_definitions(self.agent.tools());
            self.conv.typed.start(
                self.agent.config().output.as_ref(),
                self.model.native_output(),
                &tools,
            );
        } else {
            self.conv.typed.clear();
        }
        let root = self.scope.path().is_empty();
        let events = match events {
            None if !root => self.scope.events().cloned(),
            events => events,
        };
        let budget = match self.settings.usage_limit {
            None if !root => self.scope.budget().cloned(),
            limit => limit.map(Budget::new),
        };
        self.scope.set_run_link(&self.session, events, budget);
        self.conv.begin_run(self.agent.config().use_history);
        // A root run counts the session's runs (idempotency keys); a
        // child's run keeps its parent call's number.
        if root {
            self.scope.set_run(self.scope.run() + 1);
        }
        self.unavailable.clear();
        // Approvals waiting from a run that ended without pausing (a
        // stop in the same step) belong to no call any more: drop them,
        // so that no later call is taken for one.
        self.forget_waiting();
    }

    /// The `execution_start` and `user_prompt_submit` hooks (the latter
    /// may rewrite the prompt); `Some` when one of them stops the run.
    async fn open(&mut self, prompt: &mut String) -> Option<Result<RunOutput, RunError>> {
        let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
        if no_hooks(&hooks) {
            return None;
        }
        let agent_name = self.scope.agent_arc();
        let flow = caught(
            "execution_start",
            hooks.execution_start(&mut ExecutionStart {
                agent: &agent_name,
                correlation_id: self.scope.correlation_id(),
                history: Arc::make_mut(&mut self.conv.history),
                run_metadata: &self.session.metadata,
            }),
        )
        .await
        .unwrap_or_else(|m| {
            Flow::Stop(format!("a lifecycle hook panicked in execution_start: {m}"))
        });
        if let Flow::Stop(reason) = flow {
            drop(hooks);
            return Some(self.finish_stopped("execution_start", reason, None).await);
        }
        let flow = caught(
            "user_prompt_submit",
            hooks.user_prompt_submit(&mut PromptSubmit {
                agent: &agent_name,
                prompt,
                run_metadata: &self.session.metadata,
            }),
        )
        .await
        .unwrap_or_else(|m| {
            Flow::Stop(format!(
                "a lifecycle hook panicked in user_prompt_submit: {m}"
            ))
        });
        drop(hooks);
        match flow {
            Flow::Stop(reason) => Some(
                self.finish_stopped("user_prompt_submit", reason, None)
                    .await,
            ),
            _ => None,
        }
    }

    /// Resumes a run paused for approval, once every pending call has a
    /// decision ([`Approvals::resolve`](crate::approval::Approvals::resolve)).
    pub async fn resume(&mut self) -> Result<RunOutput, RunError> {
        self.resume_inner(None, None).await
    }

    /// [`resume`](Self::resume) with a journal, as
    /// [`run_journaled`](Self::run_journaled).
    pub async fn resume_journaled(&mut self, journal: &dyn Journal) -> Result<RunOutput, RunError> {
        self.resume_inner(Some(journal), None).await
    }

    /// A resumed run, streamed to `events` when it is set (as
    /// [`run_inner`](Self::run_inner)).
    pub(super) async fn resume_inner(
        &mut self,
        journal: Option<&dyn Journal>,
        events: Option<EventTx>,
    ) -> Result<RunOutput, RunError> {
        let span = self.run_span(true);
        #[cfg(feature = "otel")]
        let ended = span.clone();
        let out = async move {
            self.check_names()?;
            // The paused step stays the conversation's until the resumed
            // step settles: a resumption that does not end (dropped,
            // failed, panicked) leaves the run paused, to resume again.
            let Some(pending) = &self.conv.pending else {
                return Err(RunError::NotPaused);
            };
            let waiting = self.conv.approvals.pending_within(&self.scope).len();
            if waiting > 0 {
                return Err(RunError::StillPending(waiting));
            }
            let pending = pending.clone();
            let events = match events {
                None if !self.scope.path().is_empty() => self.scope.events().cloned(),
                events => events,
            };
            let budget = self.scope.budget().cloned();
            self.scope.set_run_link(&self.session, events, budget);
            self.conv.trace = Arc::default();
            self.drive(Some(pending), journal).await
        }
        .instrument(span)
        .await;
        #[cfg(feature = "otel")]
        genai::run_end(&ended, &out);
        out
    }
}
