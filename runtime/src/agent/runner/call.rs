//! One tool call of a step: the lifecycle `pre_tool_use` hooks, the
//! agent-level approval settings, the tool's chain (within the run's
//! `tool_call_timeout`), the `post_tool_use` / `post_tool_failure` hooks,
//! and its trace record.

use super::LinkExt;
use std::time::Instant;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tracing::Instrument;

use super::trace::micros;
use super::{EventKind, Runner, ToolCallEvent, TraceEvent, caught, no_hooks};
use crate::ToolMeta;
use crate::agent::decl::Agent;
use crate::agent::lifecycle::{LifecycleHooks, PostToolUse, PreToolUse, decide};
use crate::approval::{ApprovalRequest, CallKey, gate};
use crate::context::ToolSource;
use crate::error::ToolError;
use crate::prepost::Decision;
use crate::scope::CallScope;
use hookwire_chain::call::{CallStr, Outcome, ToolArgs, ToolCall, ToolResult, into_result};
use hookwire_chain::matcher::MatchTarget;
use hookwire_chain::toolset::ToolSet;

/// What one call left for its step (recorded as is under a journal).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct CallRecord {
    /// Its trace event.
    pub(super) trace: TraceEvent,
    /// What the model reads (unless it is pending).
    pub(super) result: ToolResult,
    /// Whether it waits for an approval decision.
    pub(super) pending: bool,
    /// The stop it asked for: the reason and the hook.
    pub(super) stopped: Option<(String, Option<String>)>,
    /// The progress its tool reported, as trace events, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) progress: Vec<TraceEvent>,
}

/// What a call came to, for its record.
struct Ran<'c> {
    /// The call as dispatched (the model's, or with the arguments the
    /// `pre_tool_use` hooks rewrote).
    call: &'c ToolCall,
    source: ToolSource,
    meta: &'c ToolMeta,
    /// The arguments the model sent.
    sent: ToolArgs,
    outcome: Outcome,
    /// Whether it waits for an approval decision.
    pending: bool,
    /// The hook that decided before the call, if one did.
    decided_by: Option<String>,
    started: Instant,
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Runs one call of `step` (whose calls `scope` makes) and records it.
    /// `call` is the model's (the history's): its id, name and arguments
    /// are shared, not copied, and a call whose `pre_tool_use` hooks leave
    /// the arguments alone is dispatched with the model's.
    pub(super) async fn run_call(&self, scope: &CallScope, call: &ToolCall) -> CallRecord {
        // The source dispatch knows. A name the tool set does not have
        // never runs (dispatch answers `UnknownTool`); hooks and the trace
        // see it as a function tool.
        let source = self
            .agent
            .tools()
            .source(&call.name)
            .unwrap_or(ToolSource::Function);
        let meta = self.agent.tools().meta(&call.name);
        let span = tool_call_span(self.scope.agent(), call, source);
        let started = Instant::now();
        // The call's own span, for its decision (`Span::current` asks the
        // dispatcher, about 45 instructions).
        let recorder = span.clone();
        async move {
            let (id, name) = (&call.id, &call.name);
            // A clone shares the model's arguments (see `ToolArgs`): what
            // the trace notes as sent, and what the hooks may rewrite.
            let sent = call.arguments.clone();
            let mut arguments = call.arguments.clone();
            scope.emit(|| EventKind::ToolStarted {
                step: scope.step(),
                id: id.clone(),
                tool: name.clone(),
                source,
                arguments: sent.clone(),
            });
            let hooks = (self.agent.lifecycle_hooks(), &self.hooks);
            // Under a journal, a call whose deadline passed while the
            // service was down ends timed out: no hook, gate or tool of it
            // starts again (`post_tool_failure` sees the timeout).
            let expired = self.expired_timeout(name, source);
            let (decision, decided_by) = self
                .decide(
                    &hooks,
                    &mut PreToolUse {
                        agent: self.scope.agent(),
                        tool: name,
                        source,
                        meta: &meta,
                        tool_use_id: id,
                        args: &mut arguments,
                        step: scope.step(),
                        decided_by: None,
                        run_metadata: &self.session.metadata,
                    },
                    expired.is_some(),
                )
                .await;
            // Arguments the hooks left alone are the model's: dispatched as
            // they are (the post hooks see the model's call); rewritten ones
            // are dispatched as a copy, and the post hooks see them.
            let rewritten = (!arguments.is_shared_with(&sent)).then(|| arguments.clone());
            let mut outcome = match expired {
                Some(error) => Err(error),
                None => {
                    if let Some(log) = self.scope.call_log() {
                        log.open(id, &sent);
                    }
                    self.execute(scope, decision, decided_by.clone(), id, name, arguments)
                        .await
                }
            };
            // Whether the call (or a call of a child agent it runs) waits for
            // a decision, or was given one while its hooks were finishing:
            // either way the step pauses, and the decision is used when the
            // call runs again, never by another call.
            let pending = self.conv.approvals.waits_at(scope, id);
            let rewritten = rewritten.map(|args| ToolCall::new(id.clone(), name.clone(), args));
            let call = rewritten.as_ref().unwrap_or(call);
            if !pending {
                self.post_tool_use(&hooks, call, source, &meta, &mut outcome, started)
                    .await;
            }
            let ran = Ran {
                call,
                source,
                meta: &meta,
                sent,
                outcome,
                pending,
                decided_by,
                started,
            };
            self.call_record(scope, ran, &recorder)
        }
        .instrument(span)
        .await
    }

    /// The decision before the call: a call whose timeout ran out
    /// (`expired`) goes on to its timeout; a tool the step did not offer
    /// is not callable, refused before any hook or gate sees the call;
    /// else the lifecycle `pre_tool_use` hooks decide.
    async fn decide(
        &self,
        hooks: &impl LifecycleHooks,
        cx: &mut PreToolUse<'_>,
        expired: bool,
    ) -> (Decision, Option<String>) {
        if expired {
            return (Decision::Continue, None);
        }
        let name = cx.tool;
        if self.unavailable.iter().any(|n| **n == *name) {
            let reason = format!(
                "tool `{name}` is not available in this step, so it was not offered and \
                 cannot be called"
            );
            return (Decision::Deny(reason), Some("available".to_owned()));
        }
        self.pre_tool_use(hooks, cx).await
    }

    /// The lifecycle `post_tool_use` hooks (or `post_tool_failure` ones,
    /// for a call that failed) of a call that does not wait.
    async fn post_tool_use(
        &self,
        hooks: &impl LifecycleHooks,
        call: &ToolCall,
        source: ToolSource,
        meta: &ToolMeta,
        outcome: &mut Outcome,
        started: Instant,
    ) {
        if no_hooks(hooks) {
            return;
        }
        let failed = !matches!(&*outcome, Ok(r) if !r.is_error);
        let mut added = Vec::new();
        let mut post = PostToolUse {
            agent: self.scope.agent(),
            call,
            source,
            meta,
            outcome,
            elapsed: started.elapsed(),
            add_messages: &mut added,
            run_metadata: &self.session.metadata,
        };
        if failed {
            let _ = caught("post_tool_failure", hooks.post_tool_failure(&mut post)).await;
        } else {
            let _ = caught("post_tool_use", hooks.post_tool_use(&mut post)).await;
        }
        // What the hooks added joins the history after the step's results,
        // with the merged messages of the step's children (journaled with
        // the call, so a replay restores them).
        if !added.is_empty() {
            let _ = super::parent::PARENT.try_with(|parent| parent.merge(added));
        }
    }

    /// What a call left: its decision on its span (and its OpenTelemetry
    /// attributes), the audit line, and its record: the result, the trace
    /// event (with what the tool received, the approvals it went through,
    /// the hooks around it), its progress, its stop.
    fn call_record(&self, scope: &CallScope, ran: Ran<'_>, span: &tracing::Span) -> CallRecord {
        let Ran {
            call,
            source,
            meta,
            sent,
            outcome,
            pending,
            decided_by,
            started,
        } = ran;
        let step = scope.step();
        let (label, hook) = verdict(&outcome, pending, decided_by);
        let stopped = match &outcome {
            Err(e @ ToolError::Stopped { reason, .. }) => {
                Some((reason.clone(), e.hook().map(str::to_owned)))
            }
            _ => None,
        };
        span.record("decision", label);
        if let Some(h) = &hook {
            span.record("hook", h.as_str());
        }
        #[cfg(feature = "otel")]
        super::genai::call_end(span, scope, label, hook.as_deref(), &outcome, &sent);
        tracing::info!(
            target: "hookwire::audit",
            agent = self.scope.agent(),
            // The model's text: escaped and bounded in the log.
            tool = %crate::outside::clean(&call.name, crate::outside::DISPLAY_LIMIT),
            source = source.as_str(),
            tool_use_id = %call.id,
            correlation_id = %self.scope.correlation_id(),
            decision = label,
            hook = hook.as_deref(),
            elapsed_us = micros(started.elapsed()),
            "agent tool call"
        );
        let result = into_result(outcome);
        // What the tool received, if it ran and got something else than
        // the model sent.
        let notes = self
            .scope
            .call_log()
            .map(|log| log.take(&call.id))
            .unwrap_or_default();
        let received = notes
            .received
            .filter(|received| !received.is_shared_with(&sent) && *received != sent);
        // Mapping an empty list still costs about 80 instructions
        // (`Vec`'s in-place collect): most calls have no progress and
        // no hooks.
        let progress = match notes.progress.is_empty() {
            true => Vec::new(),
            false => notes
                .progress
                .into_iter()
                .map(|message| TraceEvent::Progress {
                    step,
                    id: call.id.clone(),
                    tool: call.name.clone(),
                    message,
                })
                .collect(),
        };
        let hooks = self
            .agent
            .hooks_for_call(&MatchTarget::new(&call.name, source).with_meta(meta));
        let hooks = match hooks.is_empty() {
            true => Vec::new(),
            false => hooks.into_iter().map(str::to_owned).collect(),
        };
        CallRecord {
            trace: TraceEvent::ToolCall(Box::new(ToolCallEvent {
                step,
                id: call.id.clone(),
                tool: call.name.clone(),
                source,
                arguments: sent,
                received,
                hooks,
                approvals: notes.approvals,
                decision: label.into(),
                hook,
                result: result.clone(),
                elapsed_us: micros(started.elapsed()),
            })),
            result,
            pending,
            stopped,
            progress,
        }
    }

    /// The timeout a journaled call of `name` ran out of before it was run
    /// again (see [`expired`](super::expired)): the run's
    /// `tool_call_timeout`, or for a child agent the `child_timeout` its
    /// parent declares, whichever is shorter.
    fn expired_timeout(&self, name: &str, source: ToolSource) -> Option<ToolError> {
        // No timeout (the common case): nothing to look at.
        if self.settings.tool_call_timeout.is_none() && self.agent.config().child_timeout.is_none()
        {
            return None;
        }
        let tool = self
            .settings
            .tool_call_timeout
            .map(|after| (format!("tool call `{name}`"), after));
        let child = match (source, self.agent.config().child_timeout) {
            (ToolSource::Agent, Some(after)) => {
                let child = name
                    .strip_prefix(hookwire_spec::AGENT_TOOL_PREFIX)
                    .unwrap_or(name);
                Some((format!("agent `{child}`"), after))
            }
            _ => None,
        };
        let (what, after) = [tool, child]
            .into_iter()
            .flatten()
            .filter(|(_, after)| super::expired(*after))
            .min_by_key(|(_, after)| *after)?;
        tracing::warn!(target: "hookwire::audit", what, ?after, "timed out while the service was down");
        Some(ToolError::TimedOut { what, after })
    }

    /// The decision before the call: the lifecycle `pre_tool_use` hooks (a
    /// panic denies), with the hook that decided.
    async fn pre_tool_use(
        &self,
        hooks: &impl LifecycleHooks,
        cx: &mut PreToolUse<'_>,
    ) -> (Decision, Option<String>) {
        if no_hooks(hooks) {
            return (Decision::Continue, None);
        }
        match caught("pre_tool_use", decide(hooks, cx)).await {
            Ok(decision) => (decision, cx.decided_by.map(str::to_owned)),
            Err(m) => (
                Decision::Deny(format!("a lifecycle hook panicked in pre_tool_use: {m}")),
                Some("lifecycle".to_owned()),
            ),
        }
    }

    /// Carries out the decision: refuses the call, or runs it through the
    /// loop's approval gate.
    pub(super) async fn execute(
        &self,
        scope: &CallScope,
        decision: Decision,
        decided_by: Option<String>,
        id: &CallStr,
        name: &CallStr,
        arguments: ToolArgs,
    ) -> Outcome {
        match decision {
            Decision::Continue => self.gated(scope, id, name, arguments, None).await,
            Decision::Deny(reason) => Err(ToolError::Denied {
                reason,
                hook: decided_by.map(Into::into),
            }),
            Decision::Stop(reason) => Err(ToolError::Stopped {
                reason,
                hook: decided_by.map(Into::into),
            }),
            Decision::Ask(reason) => self.gated(scope, id, name, arguments, Some(reason)).await,
            // A decision this loop does not know fails closed.
            other => Err(ToolError::Denied {
                reason: format!("unsupported decision {other:?}"),
                hook: decided_by.map(Into::into),
            }),
        }
    }

    /// The loop's approval gate, the outermost layer of the call's chain:
    /// a call a lifecycle hook asked about (`asked`), or one of a tool the
    /// run's approval settings name, passes the run's approvals through
    /// the one approval [`gate`] before it is dispatched; approved with
    /// edited arguments, it is dispatched with them.
    async fn gated(
        &self,
        scope: &CallScope,
        id: &CallStr,
        name: &CallStr,
        arguments: ToolArgs,
        asked: Option<String>,
    ) -> Outcome {
        let reason = match asked {
            Some(reason) => Some(reason),
            None if self.conv.approvals.requires(scope, name) => {
                Some(format!("`{name}` needs approval"))
            }
            None => None,
        };
        if let Some(reason) = reason {
            // The identity (a digest of the arguments) is made only for a
            // call that is asked about.
            // Parsed for the approver (the loop parsed a model's call already;
            // an injection's text is parsed here).
            let mut shown = arguments;
            shown.share();
            let key = CallKey::at(&scope.place(), id, name, &shown);
            let view = self.agent.tools().tool_view(name);
            let request = ApprovalRequest::new(&key, &shown, &reason, view);
            let edited = gate(Some(&self.conv.approvals), request, "approver", scope).await?;
            let arguments = edited.unwrap_or(shown);
            return self
                .dispatch(scope, ToolCall::new(id.clone(), name.clone(), arguments))
                .await;
        }
        self.dispatch(scope, ToolCall::new(id.clone(), name.clone(), arguments))
            .await
    }

    /// Runs one call through the agent's tool set, within the run's
    /// `tool_call_timeout` if it has one (not counting the time its
    /// chain's approval gates wait for a person).
    fn dispatch<'a>(&'a self, scope: &'a CallScope, call: ToolCall) -> BoxFuture<'a, Outcome> {
        let Some(after) = self.settings.tool_call_timeout else {
            return dispatch_boxed(self.agent.tools(), scope, call);
        };
        let what = format!("tool call `{}`", call.name);
        let call = dispatch_boxed(self.agent.tools(), scope, call);
        // A journaled call run again after a restart has what is left.
        let left = super::remaining(after);
        async move {
            match crate::wait::limit(left, call).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    tracing::warn!(target: "hookwire::audit", what, ?after, "tool call timed out");
                    Err(ToolError::TimedOut { what, after })
                }
            }
        }
        .boxed()
    }
}

/// The call's decision as the trace names it (`allowed`, `denied`,
/// `stopped`, `error`, `pending`), and the hook that decided.
fn verdict(
    outcome: &Outcome,
    pending: bool,
    decided_by: Option<String>,
) -> (&'static str, Option<String>) {
    match outcome {
        _ if pending => ("pending", Some("approver".to_owned())),
        Ok(r) if r.is_error => ("error", None),
        Ok(_) => ("allowed", None),
        Err(e) => (
            match e.kind() {
                "denied" => "denied",
                "stopped" => "stopped",
                _ => "error",
            },
            e.hook().map(str::to_owned).or(decided_by),
        ),
    }
}

/// Dispatches `call` through `tools`, as a boxed future: how the loop (and
/// request-start injection) runs every tool call.
///
/// One allocation per call the loop makes, which allocates per call anyway
/// (the call's record, its result text). The chain inside the tool set stays
/// one nested type with no allocation; the box keeps the run's future from
/// containing the chain's by value, which would add the two depths: with a
/// deep chain (16 hooks) under the loop (and a child agent's loop inside
/// that) the run's future type would pass rustc's query depth limit.
fn dispatch_boxed<'a, T: ToolSet + ?Sized>(
    tools: &'a T,
    scope: &'a CallScope,
    call: ToolCall,
) -> BoxFuture<'a, Outcome> {
    tools.dispatch(scope, call).boxed()
}

/// A tool call's span: `hookwire.tool_call`, with OpenTelemetry's
/// `execute_tool` names under the feature `otel`.
fn tool_call_span(agent: &str, call: &ToolCall, source: ToolSource) -> tracing::Span {
    tracing::info_span!(
        "hookwire.tool_call",
        agent,
        tool = %call.name,
        source = source.as_str(),
        tool_use_id = %call.id,
        decision = tracing::field::Empty,
        hook = tracing::field::Empty,
        // OpenTelemetry's names (feature `otel`; see `genai`).
        otel.name = super::genai::on(|| format!("execute_tool {}", call.name)),
        otel.kind = super::genai::INTERNAL,
        otel.status_code = tracing::field::Empty,
        otel.status_description = tracing::field::Empty,
        gen_ai.operation.name = super::genai::EXECUTE_TOOL,
        gen_ai.tool.name = super::genai::on(|| &*call.name),
        gen_ai.tool.call.id = super::genai::on(|| &*call.id),
        gen_ai.tool.type = super::genai::FUNCTION,
        gen_ai.tool.call.arguments = tracing::field::Empty,
        gen_ai.tool.call.result = tracing::field::Empty,
        error.type = tracing::field::Empty,
        hookwire.decision = tracing::field::Empty,
        hookwire.hook = tracing::field::Empty,
    )
}
