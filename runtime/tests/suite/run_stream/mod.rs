//! A run as a stream of events (`Runner::stream`): the stream's trace
//! events are the run's trace, live events come as things happen (text
//! deltas, a call starting, progress, an approval asked for, usage), child
//! agents' events arrive under their path, and dropping the stream cancels
//! the run. Usage: child agents' tokens roll up per agent path, and a usage
//! limit ends the run before the model call that would pass it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use hookwire::agent::{
    AgentConfig, AgentTool, BasicAgent, EventKind, RunError, RunEvent, RunOutput, Runner,
    TraceEvent,
};
use hookwire::approval::{ApprovalDecision, Approvals, FnApprover};
use hookwire::model::{Model, ScriptedModel, Turn, Usage};
use hookwire::{Outcome, Router, Tool, ToolContext, ToolResult, call::NoArgs};
use serde_json::json;

use crate::agent_common::test_agent;
use crate::tool_progress::Sync;

mod cancel;
mod events;
mod paused;
mod polling;
mod retry;
mod usage;

fn used(input_tokens: u64, output_tokens: u64) -> Usage {
    Usage {
        input_tokens,
        output_tokens,
    }
}

/// A turn that reports `tokens` (input) + 1 (output).
fn costing(turn: Turn, tokens: u64) -> Turn {
    Turn {
        usage: used(tokens, 1),
        ..turn
    }
}

/// A child agent `Worker` whose model answers each call with text, and the
/// child's run outputs (through its extractor) for the test to compare.
fn worker(
    model: ScriptedModel,
    outputs: Arc<Mutex<Vec<RunOutput>>>,
) -> AgentTool<BasicAgent<Router<hookwire::toolset::RouterEnd>>> {
    let agent = BasicAgent::new(
        AgentConfig::new("Worker").with_description("Works."),
        Router::new(),
    );
    let model: Arc<dyn Model> = Arc::new(model);
    AgentTool::new(agent, model).with_output(move |out, _| {
        outputs.lock().unwrap().push(out.clone());
        ToolResult::text(out.text.clone())
    })
}

fn kinds(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let who = e.agent_path();
            let what = match &e.kind {
                EventKind::TextDelta { text, .. } => format!("delta {text:?}"),
                EventKind::Usage { usage, total, .. } => {
                    format!("usage {} total {}", usage.total(), total.total())
                }
                EventKind::ToolStarted {
                    tool, arguments, ..
                } => format!("start {tool} {}", serde_json::to_string(arguments).unwrap()),
                EventKind::ApprovalWait { tool, gate, .. } => format!("approval {tool} at {gate}"),
                EventKind::Progress { tool, message, .. } => format!("progress {tool}: {message}"),
                EventKind::Trace(TraceEvent::Model { .. }) => "trace model".to_owned(),
                EventKind::Trace(TraceEvent::ToolCall(call)) => format!("trace call {}", call.tool),
                EventKind::Trace(TraceEvent::Progress { .. }) => "trace progress".to_owned(),
                EventKind::Trace(TraceEvent::Prompt { .. }) => "trace prompt".to_owned(),
                EventKind::Trace(TraceEvent::Finished { status, .. }) => {
                    format!("trace {status}")
                }
                EventKind::Trace(other) => format!("trace {other}"),
                EventKind::Done(Ok(out)) => format!("done {}", out.text),
                EventKind::Done(Err(e)) => format!("failed {e}"),
                other => format!("{other:?}"),
            };
            format!("{who}: {what}")
        })
        .collect()
}
