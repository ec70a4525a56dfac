//! A hook without a timeout of its own that never returns must not hang
//! the run: `RunSettings::tool_call_timeout` (`Runner::with_tool_call_timeout`)
//! bounds every tool call, answers it with an error result naming the tool,
//! and the run goes on. Time is tokio's paused clock, so the test waits for
//! nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::time::Duration;

use agent_common::test_agent;
use hookwire::agent::{RunSettings, RunStatus, Runner, TraceEvent};
use hookwire::model::{Message, ScriptedModel, Turn};
use hookwire::{
    Handler, Hook, Json, Next, Outcome, Router, ToolArgs, ToolContext, ToolSource, chain,
    declare::ToolDecl,
};
use serde_json::json;

/// Adds `a` and `b`.
#[hookwire::tool]
fn add(a: i64, b: i64) -> Json<i64> {
    Json(a + b)
}

/// Adds too, behind a hook that hangs.
#[hookwire::tool]
fn stuck(a: i64, b: i64) -> Json<i64> {
    Json(a + b)
}

/// A hook that never returns, and has no timeout.
struct Hangs;

impl Hook for Hangs {
    async fn around<N: Handler>(
        &self,
        _: &mut ToolContext,
        _: ToolArgs,
        _: Next<'_, N>,
    ) -> Outcome {
        std::future::pending().await
    }

    fn name(&self) -> &'static str {
        "hangs"
    }
}

fn agent() -> impl hookwire::agent::Agent {
    let hung = chain!(Hangs => stuck {}.into_handler());
    test_agent(
        "t",
        Router::new()
            .route(stuck {}.describe(), ToolSource::Function, hung)
            .tool(add {}),
    )
}

fn model() -> ScriptedModel {
    ScriptedModel::from_turns([
        Turn::call("stuck", json!({"a": 1, "b": 2})),
        Turn::call("add", json!({"a": 2, "b": 40})),
        Turn::text("done"),
    ])
}

#[tokio::test(start_paused = true)]
async fn a_hanging_hook_times_out_with_an_error_result_and_the_run_goes_on() {
    let mut runner = Runner::new(agent(), model()).with_tool_call_timeout(Duration::from_secs(30));
    let started = tokio::time::Instant::now();
    let out = tokio::time::timeout(Duration::from_secs(3600), runner.run("go"))
        .await
        .expect("the run hung")
        .unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.text, "done");
    // Waited the limit, on the paused clock.
    assert_eq!(started.elapsed(), Duration::from_secs(30));
    let results: Vec<(String, bool)> = runner
        .history()
        .iter()
        .filter_map(|m| match m {
            Message::Tool { result, .. } => Some((result.text_content(), result.is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            (
                "tool call `stuck` timed out after 30000 ms".to_owned(),
                true
            ),
            ("42".to_owned(), false),
        ]
    );
    assert!(out.trace.iter().any(|e| matches!(
        e,
        TraceEvent::ToolCall(call) if &*call.tool == "stuck" && call.decision == "error"
    )));
}

#[tokio::test(start_paused = true)]
async fn without_the_setting_a_hanging_hook_hangs_the_run() {
    // What the setting is for (and the default, documented): no limit.
    assert_eq!(RunSettings::default().tool_call_timeout, None);
    let mut runner = Runner::new(agent(), model());
    let run = tokio::time::timeout(Duration::from_secs(3600), runner.run("go")).await;
    assert!(run.is_err(), "the run should still be waiting on the hook");
}

#[test]
fn the_setting_survives_a_state_round_trip_and_old_states_read_as_none() {
    let mut settings = RunSettings::default();
    settings.tool_call_timeout = Some(Duration::from_millis(1500));
    let json = serde_json::to_value(settings).unwrap();
    let back: RunSettings = serde_json::from_value(json).unwrap();
    assert_eq!(back, settings);
    let old = json!({"max_steps": 20, "max_parallel": 8, "max_forced_continues": 3});
    let old: RunSettings = serde_json::from_value(old).unwrap();
    assert_eq!(old.tool_call_timeout, None);
}
