//! The output channel: a tool's progress messages reach the run's trace
//! (before the call's own event), never the model.
#![allow(clippy::unwrap_used)]

use crate::agent_common::test_agent;

use hookwire::agent::{Runner, TraceEvent};
use hookwire::model::{Message, ScriptedModel, Turn};
use hookwire::{Outcome, Router, Tool, ToolContext, ToolResult, call::NoArgs};
use serde_json::json;

/// `sync`: reports two steps of progress (yielding between them, so that
/// another call of the step may run), then its result.
pub(crate) struct Sync;

impl Tool for Sync {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "sync"
    }

    fn description(&self) -> &str {
        "Syncs."
    }

    async fn call(&self, cx: &ToolContext, _args: NoArgs) -> Outcome {
        cx.progress("fetched 3 files");
        tokio::task::yield_now().await;
        cx.progress(String::from("wrote 3 files"));
        Ok(ToolResult::text("synced"))
    }
}

#[tokio::test]
async fn progress_reaches_the_trace_and_not_the_model() {
    let model = ScriptedModel::from_turns([Turn::call("sync", json!({})), Turn::text("done")]);
    let mut runner = Runner::new(test_agent("ops", Router::new().tool(Sync)), model);
    let out = runner.run("sync").await.unwrap();
    let events: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Progress {
                step,
                id,
                tool,
                message,
            } => Some(format!("{step} {id} {tool}: {message}")),
            TraceEvent::ToolCall(call) => Some(format!("call {}", call.tool)),
            _ => None,
        })
        .collect();
    let id = match &runner.history()[1] {
        Message::Assistant { tool_calls, .. } => tool_calls[0].id.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        events,
        [
            format!("0 {id} sync: fetched 3 files"),
            format!("0 {id} sync: wrote 3 files"),
            "call sync".to_owned(),
        ]
    );
    assert!(
        out.trace_text()
            .contains("step 0 tool sync progress: wrote 3 files\n")
    );
    // The model reads the result only.
    let texts: Vec<String> = runner.history().iter().map(Message::text).collect();
    assert!(texts.iter().all(|t| !t.contains("files")), "{texts:?}");
    assert!(texts.contains(&"synced".to_owned()), "{texts:?}");
}
