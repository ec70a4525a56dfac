//! What hooks decide: rewriting or blocking a prompt, denying, rewriting
//! or asking about a call, several hooks' decisions combined, the stop-hook
//! loop guard, post hooks rewriting results.

use super::*;

/// Rewrites the prompt and blocks prompts that contain "forbidden".
struct PromptGuard;

impl LifecycleHooks for PromptGuard {
    async fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> Flow {
        if cx.prompt.contains("forbidden") {
            return Flow::Stop("prompt rejected".into());
        }
        cx.prompt.push_str(" (checked)");
        Flow::Continue
    }
}

#[tokio::test]
async fn user_prompt_submit_may_rewrite_or_block_the_prompt() {
    let ran: Log = Arc::default();
    let mut runner = Runner::new(
        calc(ran.clone()).with_hooks(PromptGuard),
        ScriptedModel::from_turns([Turn::text("ok")]),
    );
    runner.run("hello").await.unwrap();
    assert_eq!(runner.history()[0].text(), "hello (checked)");
    let out = runner.run("something forbidden").await.unwrap();
    assert_eq!(
        out.status,
        RunStatus::Stopped {
            reason: "prompt rejected".into(),
            hook: None
        }
    );
    assert_eq!(
        runner.history().len(),
        2,
        "the rejected prompt never joined the history"
    );
}

/// Denies `add` when a > 100, rewrites b to 0 when negative, asks when a == 7.
struct Guard;

impl LifecycleHooks for Guard {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        let a = cx.args.get("a").and_then(|v| v.as_i64()).unwrap_or(0);
        if a > 100 {
            return Decision::Deny("a is too large".into());
        }
        if cx
            .args
            .get("b")
            .and_then(|v| v.as_i64())
            .is_some_and(|b| b < 0)
        {
            let _ = cx.args.insert("b", json!(0));
        }
        if a == 7 {
            return Decision::Ask("seven is unlucky".into());
        }
        Decision::Continue
    }
    fn name(&self) -> &'static str {
        "guard"
    }
}

#[tokio::test]
async fn pre_tool_use_denies_rewrites_and_asks() {
    let ran: Log = Arc::default();
    let model = ScriptedModel::from_turns([
        Turn::call("add", json!({"a": 500, "b": 1}))
            .and_call("add", json!({"a": 1, "b": -5}))
            .and_call("add", json!({"a": 7, "b": 1})),
        Turn::text("done"),
    ]);
    let mut runner =
        Runner::new(calc(ran.clone()).with_hooks(Guard), model).with_approvals(Approvals::new(
            FnApprover::new(|_| ApprovalDecision::Deny("no luck".into())),
        ));
    let out = runner.run("go").await.unwrap();
    assert_eq!(
        *ran.lock().unwrap(),
        ["add(1,0)"],
        "only the rewritten call ran"
    );
    let results: Vec<ToolResult> = runner
        .history()
        .iter()
        .filter_map(|m| match m {
            Message::Tool { result, .. } => Some(result.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        results[0].text_content(),
        "tool call denied by `guard`: a is too large"
    );
    assert!(results[0].is_error);
    assert_eq!(results[1].text_content(), "1");
    assert_eq!(
        results[2].text_content(),
        "tool call denied by `approver`: no luck"
    );
    let decisions: Vec<(String, Option<String>)> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some((call.decision.to_string(), call.hook.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        decisions,
        [
            ("denied".into(), Some("guard".into())),
            ("allowed".into(), None),
            ("denied".into(), Some("approver".into())),
        ]
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Trail {
    trail: String,
}

#[tokio::test]
async fn several_hooks_deny_beats_ask_beats_allow_and_rewrites_apply_in_declared_order() {
    async fn run(
        hooks: impl LifecycleHooks + 'static,
        asker_approves: bool,
    ) -> (String, Vec<String>, Option<String>) {
        let tools =
            Router::new().tool(FnTool::new(
                "echo",
                "Echoes.",
                |t: Trail| async move { t.trail },
            ));
        let model = ScriptedModel::from_turns([Turn::call("echo", json!({})), Turn::text("end")]);
        let mut runner = Runner::new(test_agent("a", tools).with_hooks(hooks), model)
            .with_approvals(Approvals::new(FnApprover::new(move |_| {
                if asker_approves {
                    ApprovalDecision::Approve
                } else {
                    ApprovalDecision::Deny("human said no".into())
                }
            })));
        let out = runner.run("x").await.unwrap();
        let hook = out
            .trace
            .iter()
            .find_map(|e| match e {
                TraceEvent::ToolCall(call) => Some(call.hook.clone()),
                _ => None,
            })
            .flatten();
        (runner.history()[2].text(), Vec::new(), hook)
    }
    let log: Log = Arc::default();
    // ask then deny: deny wins, and the later hook did run.
    let (text, _, hook) = run(
        (
            Fixed("A", Decision::Ask("maybe".into()), log.clone()),
            Fixed("B", Decision::Deny("no".into()), log.clone()),
        ),
        true,
    )
    .await;
    assert_eq!(text, "tool call denied by `B`: no");
    assert_eq!(hook.as_deref(), Some("B"));
    assert_eq!(*log.lock().unwrap(), ["A", "B"]);
    // deny first: later hooks never run.
    log.lock().unwrap().clear();
    let (text, _, _) = run(
        (
            Fixed("A", Decision::Deny("first".into()), log.clone()),
            Fixed("B", Decision::Ask("?".into()), log.clone()),
        ),
        true,
    )
    .await;
    assert_eq!(text, "tool call denied by `A`: first");
    assert_eq!(*log.lock().unwrap(), ["A"]);
    // allow + ask: the approver is asked; approved, the tool sees A's then B's then C's rewrite.
    let (text, _, _) = run(
        (
            Fixed("A", Decision::Continue, log.clone()),
            Fixed("B", Decision::Ask("check".into()), log.clone()),
            Fixed("C", Decision::Continue, log.clone()),
        ),
        true,
    )
    .await;
    assert_eq!(text, "ABC");
    let (text, _, hook) = run(
        (
            Fixed("A", Decision::Continue, log.clone()),
            Fixed("B", Decision::Ask("check".into()), log.clone()),
        ),
        false,
    )
    .await;
    assert_eq!(text, "tool call denied by `approver`: human said no");
    assert_eq!(hook.as_deref(), Some("approver"));
    // stop ends the run after the step; the tool never ran.
    let tools = Router::new().tool(FnTool::new(
        "echo",
        "Echoes.",
        |t: Trail| async move { t.trail },
    ));
    let model = ScriptedModel::from_turns([Turn::call("echo", json!({})), Turn::text("never")]);
    let mut runner = Runner::new(
        test_agent("a", tools).with_hooks(Fixed("S", Decision::Stop("halt".into()), log.clone())),
        model,
    );
    let out = runner.run("x").await.unwrap();
    assert_eq!(
        out.status,
        RunStatus::Stopped {
            reason: "halt".into(),
            hook: Some("S".into())
        }
    );
    assert_eq!(runner.history()[2].text(), "run stopped by `S`: halt");
}

/// Forces the loop on until the answer contains "final".
struct Insist;

impl LifecycleHooks for Insist {
    async fn stop(&self, cx: &mut StopEvent<'_>) -> StopDecision {
        if cx.answer.contains("final") {
            StopDecision::Allow
        } else {
            StopDecision::Continue("keep going".into())
        }
    }
}

#[tokio::test]
async fn a_stop_hook_forces_the_loop_on_and_the_guard_caps_it() {
    let ran: Log = Arc::default();
    let model = ScriptedModel::from_turns([Turn::text("draft"), Turn::text("final answer")]);
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(Insist), model);
    let out = runner.run("x").await.unwrap();
    assert_eq!(out.text, "final answer");
    assert_eq!(runner.history()[2].text(), "keep going");
    // Never satisfied: the guard ends the run after max_forced_continues (3).
    let model = ScriptedModel::from_turns((0..10).map(|i| Turn::text(format!("draft {i}"))));
    let mut runner = Runner::new(calc(ran).with_hooks(Insist), model);
    let out = runner.run("x").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.text, "draft 3");
    assert_eq!(out.steps, 4);
}

/// Recovers from failures: replaces an error with a fallback value.
struct Recover;

impl LifecycleHooks for Recover {
    async fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) {
        *cx.outcome = Ok(ToolResult::text("fallback"));
    }
    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        if let Ok(r) = cx.outcome {
            r.append_text(" [seen]");
        }
    }
}

#[tokio::test]
async fn post_hooks_rewrite_results_and_recover_from_failures() {
    let ran: Log = Arc::default();
    let model = ScriptedModel::from_turns([
        Turn::call("add", json!({"a": 1, "b": 1})).and_call("missing", json!({})),
        Turn::text("ok"),
    ]);
    let mut runner = Runner::new(calc(ran).with_hooks(Recover), model);
    runner.run("x").await.unwrap();
    assert_eq!(runner.history()[2].text(), "2 [seen]");
    assert_eq!(runner.history()[3].text(), "fallback");
}
