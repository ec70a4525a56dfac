//! What a run returns: how it ended and what happened, in order.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::agent::inject::InjectionAction;
use crate::approval::PendingApproval;
use crate::context::ToolSource;
use crate::model::Usage;
use hookwire_chain::call::{CallStr, ToolArgs, ToolResult};

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStatus {
    /// The model gave a final answer.
    Completed,
    /// A hook stopped the run.
    Stopped {
        /// Why.
        reason: String,
        /// Which hook.
        hook: Option<String>,
    },
    /// Calls wait for approval; export the state, decide, and resume.
    Paused {
        /// The waiting calls.
        pending: Vec<PendingApproval>,
    },
}

impl RunStatus {
    /// A short name: `completed`, `stopped`, `paused`.
    #[inline]
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Stopped { .. } => "stopped",
            Self::Paused { .. } => "paused",
        }
    }
}

/// One thing that happened in a run, in order: the trace a run returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TraceEvent {
    /// The user's prompt joined the history.
    Prompt {
        /// The text (after `user_prompt_submit` hooks).
        text: String,
    },
    /// A lifecycle hook blocked or redirected the run.
    Hook {
        /// The event (`user_prompt_submit`, `stop`, ...).
        event: String,
        /// What it decided.
        decision: String,
        /// Why.
        reason: String,
    },
    /// A config-driven injection ran.
    Injection {
        /// The tool.
        tool: String,
        /// What happened.
        action: InjectionAction,
    },
    /// The model answered.
    Model {
        /// The step.
        step: usize,
        /// The answer's text.
        text: String,
        /// The names of the tools it called (shared with the calls).
        tool_calls: Vec<CallStr>,
        /// How long the request took, in microseconds.
        elapsed_us: u64,
    },
    /// A model call failed with a retryable error (a transport error, a
    /// 429, a 5xx) and is asked again after `delay_ms`
    /// ([`RetryPolicy`](crate::hooks::RetryPolicy)); recorded before the
    /// step's [`Model`](Self::Model) event.
    ModelRetry {
        /// The step.
        step: usize,
        /// The retry's number: 1 for the second attempt.
        attempt: u32,
        /// How long the runner waited before asking again, in milliseconds.
        delay_ms: u64,
        /// The error of the attempt before.
        reason: String,
    },
    /// The model's answer did not match the run's output schema
    /// ([`Runner::run_typed`](super::Runner::run_typed)): the model is
    /// sent the error and asked again, unless this was the last try.
    OutputRetry {
        /// The step.
        step: usize,
        /// How many answers did not match so far, this one included.
        attempt: usize,
        /// What was wrong.
        error: String,
    },
    /// A tool call finished (or was refused). Boxed, so that every event
    /// stays small (a run's trace is a `Vec` of them); it serializes flat,
    /// its fields beside `"type": "tool_call"`.
    ToolCall(Box<ToolCallEvent>),
    /// A tool reported progress while it ran
    /// ([`ToolContext::progress`](crate::ToolContext::progress)); recorded
    /// before the call's [`ToolCall`](Self::ToolCall) event. The model
    /// never reads it.
    Progress {
        /// The step.
        step: usize,
        /// The tool-use id.
        id: CallStr,
        /// The tool.
        tool: CallStr,
        /// The message.
        message: String,
    },
    /// A tool the agent's sources refused to offer (an MCP tool that
    /// differs from its server's lock): the model does not see it. Also a
    /// `warn` event.
    ToolRefused {
        /// The tool (`server__tool` for an MCP tool).
        tool: String,
        /// Why, naming what differs.
        reason: String,
    },
    /// Something about the agent every run reports (a hook that selects
    /// none of the tools found when its MCP servers connected, say); also
    /// a `warn` event.
    Warning {
        /// What is wrong.
        text: String,
    },
    /// A remembered approval condition of a tool lapsed when the run
    /// started: the tool's input schema is not the one it was remembered
    /// with, so its calls are asked about again
    /// ([`LapsedCondition`](crate::approval::LapsedCondition)).
    ApprovalLapsed {
        /// The tool, by scoped name (`refund`, `ny/refund`).
        tool: String,
        /// The condition's name.
        condition: String,
        /// What happened, for a person.
        note: String,
    },
    /// The run ended.
    Finished {
        /// `completed`, `stopped`, `paused`, `failed` (borrowed when the
        /// run records it: no allocation).
        status: Cow<'static, str>,
        /// The final text (or the reason).
        text: String,
    },
}

/// A tool call's record in the trace ([`TraceEvent::ToolCall`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCallEvent {
    /// The step.
    pub step: usize,
    /// The tool-use id (shared with the call's).
    pub id: CallStr,
    /// The tool (shared with the call's).
    pub tool: CallStr,
    /// Where it comes from.
    pub source: ToolSource,
    /// The arguments as the model sent them (shared with the history:
    /// a large argument is not copied into the trace).
    pub arguments: ToolArgs,
    /// The arguments the tool received, when hooks rewrote them (a
    /// lifecycle `pre_tool_use` hook or a hook of the call's chain);
    /// `None` when they are the ones the model sent or the tool did not
    /// run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<ToolArgs>,
    /// The hooks of the call's chain, outermost first (agent-level and
    /// entry hooks), whether it was allowed or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<String>,
    /// The approval gates the call passed, outermost first: each with
    /// its decision and who decided (the approver the run's approvals
    /// ask, a sticky decision, a decision given while the call waited,
    /// ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<crate::approval::ApprovalNote>,
    /// `allowed`, `denied`, `stopped`, `error`, `pending` (borrowed when
    /// the run records it: no allocation).
    pub decision: Cow<'static, str>,
    /// The hook that decided, when one did.
    pub hook: Option<String>,
    /// What the model reads.
    pub result: ToolResult,
    /// How long it took, in microseconds.
    pub elapsed_us: u64,
}

impl fmt::Display for TraceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Prompt { text } => write!(f, "user: {text}"),
            Self::Hook {
                event,
                decision,
                reason,
            } => write!(f, "hook {event}: {decision} ({reason})"),
            Self::Injection { tool, action } => write!(f, "inject {tool}: {action:?}"),
            Self::Model {
                step,
                text,
                tool_calls,
                elapsed_us,
            } => {
                write!(f, "step {step} model ({} us):", elapsed_us)?;
                if !text.is_empty() {
                    write!(f, " {text:?}")?;
                }
                if !tool_calls.is_empty() {
                    write!(f, " calls [{}]", tool_calls.join(", "))?;
                }
                Ok(())
            }
            Self::ToolCall(call) => {
                let ToolCallEvent {
                    step,
                    tool,
                    source,
                    arguments,
                    received,
                    hooks,
                    approvals,
                    decision,
                    hook,
                    result,
                    elapsed_us,
                    ..
                } = &**call;
                write!(f, "step {step} tool {tool} ({source}) {}", json(arguments))?;
                if let Some(received) = received {
                    write!(f, ", received {}", json(received))?;
                }
                write!(f, " -> {decision}")?;
                if let Some(hook) = hook {
                    write!(f, " by {hook}")?;
                }
                for note in approvals {
                    write!(f, " ({note})")?;
                }
                if !hooks.is_empty() {
                    write!(f, " [hooks: {}]", hooks.join(", "))?;
                }
                write!(f, " ({elapsed_us} us): {}", result.text_content())
            }
            Self::Progress {
                step,
                tool,
                message,
                ..
            } => write!(f, "step {step} tool {tool} progress: {message}"),
            Self::ModelRetry {
                step,
                attempt,
                delay_ms,
                reason,
            } => write!(
                f,
                "step {step} model retry {attempt} in {delay_ms} ms: {reason}"
            ),
            Self::Warning { text } => write!(f, "warning: {text}"),
            Self::ApprovalLapsed { tool, note, .. } => write!(f, "approval lapsed {tool}: {note}"),
            Self::ToolRefused { tool, reason } => write!(f, "tool {tool} refused: {reason}"),
            Self::OutputRetry {
                step,
                attempt,
                error,
            } => write!(f, "step {step} output retry {attempt}: {error}"),
            Self::Finished { status, text } => write!(f, "{status}: {text}"),
        }
    }
}

/// What a run returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunOutput {
    /// How it ended.
    pub status: RunStatus,
    /// The final answer (empty unless completed).
    pub text: String,
    /// What happened, in order: shared with the session (its runner keeps
    /// it for `export_state` until the next run), so returning it copies
    /// nothing.
    pub trace: std::sync::Arc<Vec<TraceEvent>>,
    /// Tokens used: by the run's model calls and by those of every child
    /// agent it called (and theirs).
    pub usage: Usage,
    /// Tokens used by the run's own model calls.
    #[serde(default)]
    pub own_usage: Usage,
    /// The run's agent path: its agent's name (`pmo`), or for a child
    /// agent's run the agents that lead to it (`pmo/ny`).
    #[serde(default)]
    pub agent_path: std::sync::Arc<str>,
    /// Tokens used by the child agents the run called, by agent path
    /// (`pmo/ny`, `pmo/ny/audit`; all calls of one child together): empty
    /// when it called none. See [`usage_by_path`](Self::usage_by_path).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub child_usage: BTreeMap<String, Usage>,
    /// Model requests made.
    pub steps: usize,
    /// The agent's `max_display_instances`: how many concurrent calls of
    /// one child agent in one step [`trace_text`](Self::trace_text) shows
    /// (the trace itself keeps every call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_display_instances: Option<usize>,
    /// The final answer as a JSON value, checked against the run's output
    /// schema ([`Runner::run_typed`](super::Runner::run_typed), an agent's
    /// [`output`](crate::agent::AgentConfig::output)); `None` for a run
    /// without one. `text` is its JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<serde_json::Value>,
}

impl RunOutput {
    /// Tokens used, by agent path: the run's own under its
    /// [`agent_path`](Self::agent_path), each child agent's under its own
    /// ([`child_usage`](Self::child_usage)). They add up to
    /// [`usage`](Self::usage).
    #[inline]
    pub fn usage_by_path(&self) -> BTreeMap<String, Usage> {
        let mut by_path = self.child_usage.clone();
        *by_path.entry(self.agent_path.to_string()).or_default() += self.own_usage;
        by_path
    }

    /// The trace as readable lines. With `max_display_instances: n`, a step
    /// that calls one child agent more than `n` times shows its first `n`
    /// calls and, in place of the first hidden one, how many are hidden.
    pub fn trace_text(&self) -> String {
        let mut lines = TraceLines::new(self.max_display_instances);
        if self.max_display_instances.is_some() {
            // Calls of each child per step, to say how many are hidden.
            for event in self.trace.iter() {
                if let TraceEvent::ToolCall(call) = event
                    && call.source == ToolSource::Agent
                {
                    *lines
                        .total
                        .entry((call.step, call.tool.clone()))
                        .or_default() += 1;
                }
            }
            lines.counted = true;
        }
        self.trace.iter().map(|event| lines.line(event)).collect()
    }
}

/// Renders trace events as [`RunOutput::trace_text`] does, one at a time:
/// for a console that prints a streamed run's trace as it is recorded
/// ([`Runner::stream`](super::Runner::stream)).
///
/// ```
/// # use hookwire::agent::{TraceEvent, TraceLines};
/// let mut lines = TraceLines::new(None);
/// let event: TraceEvent = serde_json::from_str(r#"{"type": "prompt", "text": "hi"}"#).unwrap();
/// assert_eq!(lines.line(&event), "user: hi\n");
/// ```
#[derive(Debug, Default)]
pub struct TraceLines {
    limit: Option<usize>,
    /// Calls of each child agent per step: from the whole trace, or from
    /// each step's `Model` event as it comes.
    total: HashMap<(usize, CallStr), usize>,
    /// Whether `total` was counted from the whole trace.
    counted: bool,
    shown: HashMap<(usize, CallStr), usize>,
}

impl TraceLines {
    /// A renderer showing at most `max_display_instances` concurrent calls
    /// of one child agent per step (the agent's `max_display_instances`).
    #[inline]
    pub fn new(max_display_instances: Option<usize>) -> Self {
        Self {
            limit: max_display_instances,
            ..Self::default()
        }
    }

    /// The lines of one event, each ending in a newline: one line, or none
    /// for a hidden instance (the first hidden one says how many are).
    pub fn line(&mut self, event: &TraceEvent) -> String {
        use std::fmt::Write as _;

        let mut out = String::new();
        let Some(limit) = self.limit else {
            let _ = writeln!(out, "{event}");
            return out;
        };
        match event {
            TraceEvent::Model {
                step, tool_calls, ..
            } if !self.counted => {
                for tool in tool_calls {
                    *self.total.entry((*step, tool.clone())).or_default() += 1;
                }
            }
            TraceEvent::ToolCall(call) if call.source == ToolSource::Agent => {
                let (step, tool) = (call.step, &call.tool);
                let key = (step, tool.clone());
                let seen = self.shown.entry(key.clone()).or_default();
                *seen += 1;
                let seen = *seen;
                if seen == limit + 1 {
                    let hidden = self.total.get(&key).copied().unwrap_or(seen).max(seen) - limit;
                    let s = if hidden == 1 { "" } else { "s" };
                    let _ = writeln!(
                        out,
                        "step {step} tool {tool}: {hidden} more concurrent instance{s} not shown (max_display_instances: {limit})"
                    );
                }
                if seen > limit {
                    return out;
                }
            }
            _ => {}
        }
        let _ = writeln!(out, "{event}");
        out
    }
}

/// A duration in whole microseconds, as the trace records it.
#[inline]
pub(super) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Arguments as compact JSON, whatever the model's spacing.
#[inline]
fn json(args: &ToolArgs) -> String {
    serde_json::to_string(args).unwrap_or_else(|e| format!("(unprintable arguments: {e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_event_stays_small() {
        // A run's trace is a `Vec` of events: with the tool call's record
        // boxed, a run of a few steps stays under the size a small-block
        // allocator serves from its per-thread cache (BENCHMARKS.md).
        let size = std::mem::size_of::<TraceEvent>();
        println!("TraceEvent: {size} bytes");
        assert!(size <= 80, "a TraceEvent is {size} bytes");
    }
}
