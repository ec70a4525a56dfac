//! Lifecycle hooks: every event fires in order; blocking, rewriting and the
//! stop-hook loop guard; decisions across several hooks.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::sync::{Arc, Mutex};

use agent_common::{TestAgent, test_agent};
use hookwire::agent::lifecycle::{
    AgentFailed, ExecutionEnd, ExecutionStart, Flow, ForTools, LifecycleHooks, PostToolUse,
    PreToolUse, PromptSubmit, StepEnd, StepStart, StopDecision, StopEvent,
};
use hookwire::agent::{RunStatus, Runner, TraceEvent};
use hookwire::approval::{Answer, FnAsker};
use hookwire::model::{Message, ScriptedModel, Turn};
use hookwire::{Decision, FnTool, Json, Router, ToolResult};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

type Log = Arc<Mutex<Vec<String>>>;

fn calc(ran: Log) -> TestAgent<impl hookwire::ToolSet> {
    adder("add", ran)
}

/// An agent with one tool, `name`, that adds and records its calls.
fn adder(name: &'static str, ran: Log) -> TestAgent<impl hookwire::ToolSet> {
    test_agent(
        "calc",
        Router::new().tool(FnTool::new(name, "Adds.", move |x: Add| {
            let ran = ran.clone();
            async move {
                ran.lock().unwrap().push(format!("{name}({},{})", x.a, x.b));
                Json(x.a + x.b)
            }
        })),
    )
}

/// Records every event.
struct Recorder(Log);

impl Recorder {
    fn log(&self, s: String) {
        self.0.lock().unwrap().push(s);
    }
}

impl LifecycleHooks for Recorder {
    async fn execution_start(&self, cx: &mut ExecutionStart<'_>) -> Flow {
        self.log(format!("execution_start({})", cx.history.len()));
        Flow::Continue
    }
    async fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> Flow {
        self.log(format!("user_prompt_submit({})", cx.prompt));
        Flow::Continue
    }
    async fn step_start(&self, cx: &mut StepStart<'_>) -> Flow {
        self.log(format!("step_start({})", cx.step));
        Flow::Continue
    }
    async fn step_end(&self, cx: &StepEnd<'_>) {
        self.log(format!("step_end({},{})", cx.step, cx.tool_results.len()));
    }
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        self.log(format!("pre_tool_use({})", cx.tool));
        Decision::Continue
    }
    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        self.log(format!("post_tool_use({})", cx.call.name));
    }
    async fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) {
        self.log(format!("post_tool_failure({})", cx.call.name));
    }
    async fn stop(&self, cx: &StopEvent<'_>) -> StopDecision {
        self.log(format!("stop({})", cx.answer));
        StopDecision::Allow
    }
    async fn agent_failed(&self, cx: &AgentFailed<'_>) {
        self.log(format!("agent_failed({})", cx.error));
    }
    async fn execution_end(&self, cx: &ExecutionEnd<'_>) {
        self.log(format!("execution_end({})", cx.status));
    }
}

#[tokio::test]
async fn every_event_fires_once_in_order() {
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let agent = calc(ran.clone()).with_hooks(Recorder(log.clone()));
    let model = ScriptedModel::from_turns([
        Turn::call("add", json!({"a": 1, "b": 2})).and_call("nope", json!({})),
        Turn::text("3"),
    ]);
    Runner::new(agent, model).run("go").await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "execution_start(0)",
            "user_prompt_submit(go)",
            "step_start(0)",
            "pre_tool_use(add)",
            "post_tool_use(add)",
            "pre_tool_use(nope)",
            "post_tool_failure(nope)",
            "step_end(0,2)",
            "step_start(1)",
            "stop(3)",
            "step_end(1,0)",
            "execution_end(completed)",
        ]
    );
    // A failing run reports agent_failed then execution_end.
    let log2: Log = Arc::default();
    let agent = calc(ran).with_hooks(Recorder(log2.clone()));
    let _ = Runner::new(agent, ScriptedModel::from_turns([]))
        .run("x")
        .await;
    let log2 = log2.lock().unwrap();
    assert!(
        log2[log2.len() - 2].starts_with("agent_failed(the script"),
        "{log2:?}"
    );
    assert_eq!(log2[log2.len() - 1], "execution_end(failed)");
}

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
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(Guard), model)
        .with_asker(FnAsker::new(|_| Answer::Deny("no luck".into())));
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

/// A hook that returns a fixed decision and logs that it ran.
struct Fixed(&'static str, Decision, Log);

impl LifecycleHooks for Fixed {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        self.2.lock().unwrap().push(self.0.to_owned());
        // Each hook appends its name to `trail`, so the order of rewrites shows.
        let mut trail = cx
            .args
            .get("trail")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_owned();
        trail.push_str(self.0);
        let _ = cx.args.insert("trail", json!(trail));
        self.1.clone()
    }
    fn name(&self) -> &'static str {
        self.0
    }
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
        let mut runner = Runner::new(test_agent("a", tools).with_hooks(hooks), model).with_asker(
            FnAsker::new(move |_| {
                if asker_approves {
                    Answer::Approve
                } else {
                    Answer::Deny("human said no".into())
                }
            }),
        );
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

#[tokio::test]
async fn for_tools_limits_tool_events_to_matching_tools() {
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let hook = ForTools::new(
        "sub|mul".parse::<hookwire::matcher::Matcher>().unwrap(),
        Fixed(
            "only-sub-mul",
            Decision::Deny("blocked".into()),
            log.clone(),
        ),
    );
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 1})), Turn::text("2")]);
    let out = Runner::new(calc(ran.clone()).with_hooks(hook), model)
        .run("x")
        .await
        .unwrap();
    assert_eq!(out.text, "2");
    assert!(log.lock().unwrap().is_empty(), "the hook never saw `add`");
    assert_eq!(*ran.lock().unwrap(), ["add(1,1)"]);
}

/// Forces the loop on until the answer contains "final".
struct Insist;

impl LifecycleHooks for Insist {
    async fn stop(&self, cx: &StopEvent<'_>) -> StopDecision {
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

/// Extra runner-level hooks run after the agent's own.
#[tokio::test]
async fn runner_hooks_run_after_the_agents_hooks() {
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let agent = calc(ran).with_hooks(Fixed("agent", Decision::Continue, log.clone()));
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 1})), Turn::text("ok")]);
    let mut runner =
        Runner::new(agent, model).with_hooks(Fixed("runner", Decision::Continue, log.clone()));
    runner.run("x").await.unwrap();
    assert_eq!(*log.lock().unwrap(), ["agent", "runner"]);
}

#[tokio::test]
async fn for_tools_selects_with_a_function() {
    use hookwire::ToolSource;
    use hookwire::matcher::MatchTarget;
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let hook = ForTools::new(
        |t: &MatchTarget<'_>| t.tool == "add" && t.source == ToolSource::Function,
        Fixed("add-only", Decision::Deny("no adding".into()), log.clone()),
    );
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 1})), Turn::text("ok")]);
    let mut runner = Runner::new(calc(ran.clone()).with_hooks(hook), model);
    runner.run("x").await.unwrap();
    assert_eq!(*log.lock().unwrap(), ["add-only"]);
    assert!(ran.lock().unwrap().is_empty());
    assert_eq!(
        runner.history()[2].text(),
        "tool call denied by `add-only`: no adding"
    );
}

/// Panics in `pre_tool_use` for `add`, and in `post_tool_use` and `step_end`.
struct Panicky;

impl LifecycleHooks for Panicky {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        if cx.tool == "add" {
            panic!("boom in pre");
        }
        Decision::Continue
    }
    async fn step_end(&self, _cx: &StepEnd<'_>) {
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

/// Records the source every tool event reports.
struct Sources(Log);

impl LifecycleHooks for Sources {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        let line = format!("pre {} {}", cx.tool, cx.source);
        self.0.lock().unwrap().push(line);
        Decision::Continue
    }
    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        let line = format!("post {} {}", cx.call.name, cx.source);
        self.0.lock().unwrap().push(line);
    }
}

#[tokio::test]
async fn a_function_tool_named_like_an_mcp_tool_is_seen_as_a_function_tool() {
    // `a__b` has the shape of an MCP tool's name (`server__tool`), but it
    // is a function tool: hooks, matchers and the trace get the source the
    // tool set dispatches it with, not one guessed from the name.
    let log: Log = Arc::default();
    let selected: Log = Arc::default();
    let ran: Log = Arc::default();
    let agent = adder("a__b", ran.clone()).with_hooks((
        Sources(log.clone()),
        ForTools::new(
            "source:mcp".parse::<hookwire::matcher::Matcher>().unwrap(),
            Fixed(
                "mcp-only",
                Decision::Deny("not for MCP tools".into()),
                selected.clone(),
            ),
        ),
    ));
    let model =
        ScriptedModel::from_turns([Turn::call("a__b", json!({"a": 2, "b": 3})), Turn::text("5")]);
    let out = Runner::new(agent, model).run("x").await.unwrap();
    assert_eq!(*ran.lock().unwrap(), ["a__b(2,3)"]);
    assert!(
        selected.lock().unwrap().is_empty(),
        "a `source:mcp` hook selected a function tool"
    );
    assert_eq!(
        *log.lock().unwrap(),
        ["pre a__b function", "post a__b function"]
    );
    let sources: Vec<_> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some(format!("{} {}", call.tool, call.source)),
            _ => None,
        })
        .collect();
    assert_eq!(sources, ["a__b function"]);
}

/// The events a `ForTools` with step events lets through, for `pattern`.
async fn events_for(pattern: &str) -> Vec<String> {
    let log: Log = Arc::default();
    let hook = ForTools::new(
        pattern.parse::<hookwire::matcher::Matcher>().unwrap(),
        Recorder(log.clone()),
    )
    .with_step_events();
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 2})), Turn::text("3")]);
    Runner::new(calc(Log::default()).with_hooks(hook), model)
        .run("go")
        .await
        .unwrap();
    let log = log.lock().unwrap();
    // The events of the whole run fire as before.
    log.iter()
        .filter(|e| {
            !e.starts_with("execution_")
                && !e.starts_with("user_prompt")
                && !e.starts_with("step_start")
        })
        .cloned()
        .collect()
}

#[tokio::test]
async fn step_matchers_select_the_final_answer_or_the_tool_steps() {
    assert_eq!(events_for("step:final").await, ["stop(3)", "step_end(1,0)"]);
    assert_eq!(
        events_for("step:tool").await,
        ["pre_tool_use(add)", "post_tool_use(add)", "step_end(0,1)"]
    );
    // A name selects that tool's calls, never a step as a whole.
    assert_eq!(
        events_for("add|step:final").await,
        [
            "pre_tool_use(add)",
            "post_tool_use(add)",
            "stop(3)",
            "step_end(1,0)"
        ]
    );
    assert_eq!(
        events_for("!step:final").await,
        ["pre_tool_use(add)", "post_tool_use(add)", "step_end(0,1)"]
    );
}

#[tokio::test]
async fn without_step_events_a_matcher_limits_only_the_tool_events() {
    let log: Log = Arc::default();
    let hook = ForTools::new(
        "sub".parse::<hookwire::matcher::Matcher>().unwrap(),
        Recorder(log.clone()),
    );
    let model = ScriptedModel::from_turns([Turn::text("3")]);
    Runner::new(calc(Log::default()).with_hooks(hook), model)
        .run("go")
        .await
        .unwrap();
    assert!(log.lock().unwrap().contains(&"stop(3)".to_owned()));
}
