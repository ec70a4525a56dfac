//! A panicking lifecycle hook denies its call or stops the run with the
//! reason.

use super::*;

/// Panics in `pre_tool_use` for `add`, and in `post_tool_use` and `step_end`.
struct Panicky;

impl LifecycleHooks for Panicky {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        if cx.tool == "add" {
            panic!("boom in pre");
        }
        Decision::Continue
    }
    async fn step_end(&self, _cx: &mut StepEnd<'_>) {
        panic!("boom in step_end");
    }
}

#[tokio::test]
async fn a_panicking_lifecycle_hook_denies_the_call_and_the_run_goes_on() {
    let ran: Log = Arc::default();
    let model = ScriptedModel::from_turns([
        Turn::call("add", json!({"a": 1, "b": 1})),
        Turn::text("survived"),
    ]);
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(Panicky), model);
    let out = runner.run("x").await.unwrap();
    assert_eq!(out.text, "survived");
    assert!(
        ran.lock().unwrap().is_empty(),
        "fail closed: the call did not run"
    );
    assert_eq!(
        runner.history()[2].text(),
        "tool call denied by `lifecycle`: a lifecycle hook panicked in pre_tool_use: panicked: boom in pre"
    );
}

/// Panics when the prompt arrives.
struct PanicOnPrompt;

impl LifecycleHooks for PanicOnPrompt {
    async fn user_prompt_submit(&self, _cx: &mut PromptSubmit<'_>) -> Flow {
        panic!("bad prompt hook");
    }
}

#[tokio::test]
async fn a_panicking_blocking_hook_stops_the_run_with_the_reason() {
    let ran: Log = Arc::default();
    let mut runner = Runner::new(
        calc(ran).with_hooks(PanicOnPrompt),
        ScriptedModel::from_turns([Turn::text("never")]),
    );
    let out = runner.run("x").await.unwrap();
    match out.status {
        RunStatus::Stopped { reason, .. } => {
            assert!(reason.contains("bad prompt hook"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}
