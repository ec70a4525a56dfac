//! A lifecycle hook's `on_failure` and `timeout_ms`, through
//! `Runner::with_hooks(LifecycleGuard::new(..))`: what the model reads, what ran,
//! and that waiting for a person never counts against a hook's timeout.

use crate::agent_common;
use crate::approval_identity::Slow;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_common::{TestAgent, test_agent};
use hookwire::agent::lifecycle::{
    Flow, LifecycleGuard, LifecycleHooks, PostToolUse, PreToolUse, StepEnd, StepStart,
};
use hookwire::agent::{RunStatus, Runner};
use hookwire::approval::Approvals;
use hookwire::model::{Message, ScriptedModel, Turn};
use hookwire::{Decision, FailurePolicy, FnTool, Json, Router, ToolResult};
use serde_json::json;

type Log = Arc<Mutex<Vec<String>>>;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

/// An agent with one tool, `add`, that records its calls.
fn calc(ran: Log) -> TestAgent<impl hookwire::ToolSet> {
    test_agent(
        "calc",
        Router::new().tool(FnTool::new("add", "Adds.", move |x: Add| {
            let ran = ran.clone();
            async move {
                ran.lock().unwrap().push(format!("add({},{})", x.a, x.b));
                Json(x.a + x.b)
            }
        })),
    )
}

/// How a hook fails.
#[derive(Clone, Copy)]
enum Fail {
    /// Sleeps for a second.
    Hang,
    /// Panics.
    Panic,
}

impl Fail {
    async fn now(self) {
        match self {
            Self::Hang => tokio::time::sleep(Duration::from_secs(1)).await,
            Self::Panic => panic!("boom"),
        }
    }
}

/// Rewrites `a` to 100, then fails, in `pre_tool_use`.
struct BadPre(Fail);

impl LifecycleHooks for BadPre {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        cx.args.insert("a", json!(100)).unwrap();
        self.0.now().await;
        Decision::Continue
    }
    fn name(&self) -> &'static str {
        "bad_pre"
    }
}

/// Replaces the result, then fails, in `post_tool_use`.
struct BadPost(Fail);

impl LifecycleHooks for BadPost {
    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        *cx.outcome = Ok(ToolResult::text("rewritten"));
        self.0.now().await;
    }
    fn name(&self) -> &'static str {
        "bad_post"
    }
}

/// Empties the history, then fails, in `step_start`; fails in `step_end`.
struct BadStep(Fail);

impl LifecycleHooks for BadStep {
    async fn step_start(&self, cx: &mut StepStart<'_>) -> Flow {
        cx.history.clear();
        self.0.now().await;
        Flow::Continue
    }
    async fn step_end(&self, _cx: &mut StepEnd<'_>) {
        self.0.now().await;
    }
    fn name(&self) -> &'static str {
        "bad_step"
    }
}

/// What the model read for each tool call.
fn tool_results(runner: &[Message]) -> Vec<(String, bool)> {
    runner
        .iter()
        .filter_map(|m| match m {
            Message::Tool { result, .. } => Some((result.text_content(), result.is_error)),
            _ => None,
        })
        .collect()
}

fn one_call() -> ScriptedModel {
    ScriptedModel::from_turns([
        Turn::call("add", json!({"a": 1, "b": 2})),
        Turn::text("done"),
    ])
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[tokio::test(start_paused = true)]
async fn a_fail_closed_pre_tool_use_hook_that_times_out_denies_the_call_naming_itself() {
    let ran: Log = Arc::default();
    let hook = LifecycleGuard::new(BadPre(Fail::Hang))
        .with_policy(FailurePolicy::FailClosed)
        .with_timeout(ms(50));
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), one_call());
    let out = runner.run("x").await.unwrap();
    assert_eq!(out.text, "done", "the run goes on");
    assert!(ran.lock().unwrap().is_empty(), "the tool never ran");
    assert_eq!(
        tool_results(runner.history()),
        [(
            "tool call denied by `bad_pre`: hook `bad_pre` failed: pre_tool_use timed out after 50 ms"
                .to_owned(),
            true
        )]
    );
}

#[tokio::test]
async fn a_fail_open_pre_tool_use_hook_that_panics_is_skipped_with_its_rewrite() {
    let ran: Log = Arc::default();
    let hook = LifecycleGuard::new(BadPre(Fail::Panic)).with_policy(FailurePolicy::FailOpen);
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), one_call());
    runner.run("x").await.unwrap();
    // The call ran with the model's arguments, not the failed hook's `a: 100`.
    assert_eq!(*ran.lock().unwrap(), ["add(1,2)"]);
    assert_eq!(tool_results(runner.history()), [("3".to_owned(), false)]);
}

#[tokio::test(start_paused = true)]
async fn the_default_policy_is_closed_in_pre_tool_use() {
    // A timeout and no `on_failure`: like an unguarded hook's panic there.
    let ran: Log = Arc::default();
    let hook = LifecycleGuard::new(BadPre(Fail::Hang)).with_timeout(ms(20));
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), one_call());
    runner.run("x").await.unwrap();
    assert!(ran.lock().unwrap().is_empty());
    assert_eq!(
        tool_results(runner.history())[0].0,
        "tool call denied by `bad_pre`: hook `bad_pre` failed: pre_tool_use timed out after 20 ms"
    );
}

#[tokio::test]
async fn a_fail_closed_post_tool_use_hook_that_panics_makes_the_result_an_error() {
    let ran: Log = Arc::default();
    let hook = LifecycleGuard::new(BadPost(Fail::Panic)).with_policy(FailurePolicy::FailClosed);
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), one_call());
    runner.run("x").await.unwrap();
    assert_eq!(*ran.lock().unwrap(), ["add(1,2)"], "the tool ran");
    assert_eq!(
        tool_results(runner.history()),
        [(
            "hook `bad_post` failed: post_tool_use panicked: boom".to_owned(),
            true
        )]
    );
}

#[tokio::test(start_paused = true)]
async fn a_post_tool_use_hook_that_fails_open_or_by_default_keeps_the_result_as_before_it() {
    for hook in [
        LifecycleGuard::new(BadPost(Fail::Hang))
            .with_policy(FailurePolicy::FailOpen)
            .with_timeout(ms(50)),
        // The default there is open, as for an unguarded hook.
        LifecycleGuard::new(BadPost(Fail::Hang)).with_timeout(ms(50)),
    ] {
        let ran: Log = Arc::default();
        let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), one_call());
        runner.run("x").await.unwrap();
        assert_eq!(*ran.lock().unwrap(), ["add(1,2)"]);
        // Not the hook's "rewritten": it failed, so it is as if it were not there.
        assert_eq!(tool_results(runner.history()), [("3".to_owned(), false)]);
    }
}

#[tokio::test(start_paused = true)]
async fn a_failing_step_hook_stops_the_run_when_closed_and_is_skipped_when_open() {
    let hook = LifecycleGuard::new(BadStep(Fail::Hang)).with_timeout(ms(50));
    let mut runner = Runner::new(calc(Log::default()).with_hooks(hook), one_call());
    let out = runner.run("x").await.unwrap();
    match out.status {
        RunStatus::Stopped { reason, .. } => assert_eq!(
            reason,
            "hook `bad_step` failed: step_start timed out after 50 ms"
        ),
        other => panic!("{other:?}"),
    }

    let ran: Log = Arc::default();
    let hook = LifecycleGuard::new(BadStep(Fail::Panic)).with_policy(FailurePolicy::FailOpen);
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), one_call());
    let out = runner.run("x").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(*ran.lock().unwrap(), ["add(1,2)"]);
    // The hook's `history.clear()` was undone: the prompt is still there.
    assert_eq!(runner.history()[0].text(), "x");
}

/// Asks about every call.
struct AskFirst;

impl LifecycleHooks for AskFirst {
    async fn pre_tool_use(&self, _cx: &mut PreToolUse<'_>) -> Decision {
        Decision::Ask("look first".into())
    }
}

#[tokio::test(start_paused = true)]
async fn waiting_for_the_person_a_hook_asked_does_not_count_against_its_timeout() {
    let ran: Log = Arc::default();
    let hook = LifecycleGuard::new(AskFirst)
        .with_policy(FailurePolicy::FailClosed)
        .with_timeout(ms(50));
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), one_call())
        .with_approvals(Approvals::new(Slow(Duration::from_secs(5))));
    runner.run("x").await.unwrap();
    assert_eq!(*ran.lock().unwrap(), ["add(1,2)"], "approved after 5 s");
    assert_eq!(tool_results(runner.history()), [("3".to_owned(), false)]);
}
