//! Request hooks' rounds of injections (`on_request_start`,
//! `on_completion`): each injection's call takes the one path of every
//! tool call.

use std::sync::Arc;

use super::{Runner, TraceEvent};
use crate::agent::decl::Agent;
use crate::agent::inject::{HookEvent, Injected, InjectionAction, SystemClock, run_injection};
use crate::agent::journal::{Journal, JournalError};
use crate::agent::lifecycle::LifecycleHooks;
use crate::model::Message;
use crate::scope::CallScope;
use hookwire_chain::call::ToolResult;

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
        // Each injection joins the history once its call is done, and the
        // counter counts it: a round dropped midway (its run cancelled)
        // leaves the history with the injections made so far, each whole.
        let scope = self.scope.at_step(self.conv.steps);
        for hook in &hooks {
            let counter = self.conv.injections + 1;
            let injected = self
                .injection(&scope, hook, &self.conv.history, counter)
                .await;
            self.conv.injections = counter;
            let action = match injected {
                Ok(injected) => injected.apply(Arc::make_mut(&mut self.conv.history)),
                Err(action) => action,
            };
            let tool = hook.resolve_name(self.agent.tools());
            self.record(TraceEvent::Injection { tool, action });
        }
        Ok(())
    }

    /// Runs `hooks` against `history`: each injection's call takes the
    /// one path of every tool call ([`run_call`](Self::run_call): the
    /// lifecycle hooks, the approval gate, the chain). Its trace events
    /// and the injection counter after it (ids count on from the
    /// session's, exported with its state).
    pub(super) async fn injection_round(
        &self,
        hooks: &[crate::agent::inject::RequestHook],
        history: &mut Vec<Message>,
    ) -> (Vec<TraceEvent>, u64) {
        let scope = self.scope.at_step(self.conv.steps);
        let mut traces = Vec::with_capacity(hooks.len());
        let mut counter = self.conv.injections;
        for hook in hooks {
            counter += 1;
            let action = match self.injection(&scope, hook, history, counter).await {
                Ok(injected) => injected.apply(history),
                Err(action) => action,
            };
            traces.push(TraceEvent::Injection {
                tool: hook.resolve_name(self.agent.tools()),
                action,
            });
        }
        (traces, counter)
    }

    /// Runs one injection's call against `history` (only read). An
    /// injection cannot pause the run: a call that would wait for a
    /// person is skipped, and nothing of it stays waiting.
    async fn injection(
        &self,
        scope: &CallScope,
        hook: &crate::agent::inject::RequestHook,
        history: &[Message],
        counter: u64,
    ) -> Result<Injected, InjectionAction> {
        run_injection(
            hook,
            self.agent.tools(),
            history,
            self.clock.as_deref().unwrap_or(&SystemClock),
            counter,
            |call| async move {
                let id = call.id.clone();
                let record = self.run_call(scope, &call).await;
                if record.pending {
                    self.conv.approvals.forget_at(scope, &id);
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
        .await
    }
}
