//! The first phase of a step: ask the model. The step's start (the step
//! limit, the usage budget, the `step_start` hooks), the request (the
//! tools on offer, the system prompt, the typed output, the text deltas
//! for a stream), the answer (live, or recorded under a journal) and what
//! it leads to: calls to run, a final answer, another try.

use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument;

use super::journaled::Answer;
use super::step::{AfterModel, Step};
use super::trace::micros;
use super::{EventKind, LinkExt, RunError, Runner, caught, no_hooks};
use crate::agent::decl::Agent;
use crate::agent::journal::Journal;
use crate::agent::lifecycle::{Flow, LifecycleHooks, StepStart};
use crate::model::{ModelRequest, ModelResponse, RetryNote};
use hookwire_chain::call::ToolCall;
use hookwire_chain::tool::ToolDefinition;
use hookwire_chain::toolset::ToolSet;
use hookwire_chain::view::StepView;

/// A step that has started: its number, its start, its span.
pub(super) struct Started {
    pub(super) step: usize,
    pub(super) at: Instant,
    pub(super) span: tracing::Span,
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Starts a step and asks the model: calls to run, another try, or the
    /// end of the run. A final answer goes to
    /// [`final_answer`](Self::final_answer).
    pub(super) async fn ask_model(
        &mut self,
        definitions: &[ToolDefinition],
        journal: Option<&dyn Journal>,
    ) -> AfterModel {
        // The step's start: the step limit, the usage budget, the
        // `step_start` hooks (in this body, not a nested future).
        if self.conv.steps >= self.settings.max_steps {
            let error = RunError::StepLimit(self.conv.steps);
            return AfterModel::Ended(self.fail(error).await);
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
        let step = self.conv.steps;
        self.conv.steps += 1;
        let at = Instant::now();
        let agent_name = self.scope.agent_arc();
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
                    history: Arc::make_mut(&mut self.conv.history),
                    run_metadata: &self.session.metadata,
                }),
            )
            .await
        }
        .unwrap_or_else(|m| Flow::Stop(format!("a lifecycle hook panicked in step_start: {m}")));
        drop(hooks);
        if let Flow::Stop(reason) = flow {
            let ended = self.finish_stopped("step_start", reason, None).await;
            return AfterModel::Ended(ended);
        }
        let started = Started { step, at, span };
        // The model's answer to the step's request (the tools on offer, the
        // system prompt with their instructions, the typed output), with
        // the time it took and, under a journal, when it came; its retries
        // are recorded. In this body, not a nested future: the response is
        // not moved out of one.
        // What the tools say about this step: those not available are not
        // offered (and a call to one is refused), and the instructions of
        // those that are join the system prompt. Nothing is allocated when
        // every tool is available and none has an instruction.
        let offer = self.agent.tools().step_offer(
            definitions,
            &StepView::new(&agent_name, step, &self.conv.history, self.scope.session()),
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
        let mut request = ModelRequest::new(&agent_name, &system, &self.conv.history, &offered);
        if let Some(deltas) = &deltas {
            request = request.with_on_text(deltas);
        }
        if let Some(check) = &self.conv.typed.current {
            request = request.with_output(&check.spec);
        }
        let mut retries = Vec::new();
        let (answer, elapsed_us, answered) = match journal {
            None => self.live_answer(request, &started, &mut retries).await,
            Some(journal) => match self
                .journaled_answer(journal, step, started.at, request, &mut retries)
                .instrument(started.span.clone())
                .await
            {
                Ok(answer) => answer,
                Err(e) => return AfterModel::Ended(self.fail(e.into()).await),
            },
        };
        drop(deltas);
        self.keep_retries(step, retries);
        let mut response = match answer {
            Ok(response) => response,
            Err(e) => return AfterModel::Ended(self.fail(RunError::Model(e)).await),
        };
        let Started { step, at, span } = started;
        self.note_answer(step, &mut response, elapsed_us);
        // A run that asks no typed output does not call `typed_answer`.
        if self.conv.typed.current.is_some()
            && let Some(after) = self.typed_answer(step, &response, at, journal).await
        {
            return after;
        }
        if response.tool_calls.is_empty() {
            return self.final_answer(step, response, at, journal, true).await;
        }
        self.calls_step(step, response, at, span, answered)
    }

    /// The model's answer, asked now (with retries), in the step's span
    /// or, under the feature `otel`, a `chat {model}` span inside it.
    async fn live_answer(
        &self,
        request: ModelRequest<'_>,
        started: &Started,
        retries: &mut Vec<RetryNote>,
    ) -> Answer {
        let span = &started.span;
        // Each retry goes to the stream as it starts (before the new
        // attempt's text), and to the trace once the answer came.
        let (scope, step) = (&self.scope, started.step);
        let mut on_retry = |note: RetryNote| {
            super::events::retry_started(scope, step, &note);
            retries.push(note);
        };
        let answer = crate::model::complete_with_retry(
            &*self.model,
            request,
            &self.settings.model_retry,
            &mut on_retry,
        );
        // In a `chat {model}` span, the step's child (feature `otel`; the
        // step's own span when nobody takes it).
        #[cfg(feature = "otel")]
        let chat = super::genai::chat_span(span, &*self.model, &self.scope, request);
        #[cfg(feature = "otel")]
        let inner = if chat.is_disabled() { span } else { &chat };
        #[cfg(not(feature = "otel"))]
        let inner = span;
        // Nobody collects spans: the answer is not moved into an
        // `Instrumented`.
        let answer = if inner.is_disabled() {
            answer.await
        } else {
            answer.instrument(inner.clone()).await
        };
        #[cfg(feature = "otel")]
        super::genai::chat_end(&chat, &self.scope, &answer);
        (answer, micros(started.at.elapsed()), None)
    }

    /// What every answer's calls and usage go through first: unique ids,
    /// shared arguments, the usage (and the run's budget), the record.
    #[inline]
    fn note_answer(&mut self, step: usize, response: &mut ModelResponse, elapsed_us: u64) {
        unique_call_ids(step, &mut response.tool_calls);
        // The history, the calls and the trace share each call's id and
        // arguments (one copy of the model's text, not parsed: a tool parses
        // it into its typed arguments, a hook that reads a field parses it
        // once); the name becomes the tool set's own (no copy at all).
        let tools = self.agent.tools();
        for call in &mut response.tool_calls {
            call.id.share();
            match tools.declared_name(&call.name) {
                Some(name) => call.name = name,
                None => call.name.share(),
            }
            call.arguments.share_text();
        }
        self.conv.usage += response.usage;
        if let Some(budget) = self.scope.budget() {
            budget.spend(response.usage.total());
        }
        self.record_answer(step, response, elapsed_us);
    }

    /// An answer with calls: they run, and join the history with their
    /// results ([`run_step`](Self::run_step)).
    fn calls_step(
        &self,
        step: usize,
        response: ModelResponse,
        at: Instant,
        span: tracing::Span,
        answered: Option<std::time::SystemTime>,
    ) -> AfterModel {
        let calls = response.tool_calls.len();
        AfterModel::Calls(Step {
            step,
            response,
            results: smallvec::smallvec![None; calls],
            started: at,
            span,
            answered,
            resumed: false,
        })
    }
}

/// Makes the call ids of one model answer unique, as they arrive: an empty
/// id becomes `call_<step>_<index>`, and an id used by an earlier call of
/// the same answer gets `_<index>` appended (again until it is free). The
/// loop identifies calls by these ids (their results, their approvals), so
/// an id the model repeats must never make one call run for another. The
/// history keeps the ids as rewritten, so the model reads each result
/// against the call it belongs to.
#[inline]
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
#[inline]
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
#[inline]
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
