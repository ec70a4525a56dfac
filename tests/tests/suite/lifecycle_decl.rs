//! Lifecycle hooks declared with `#[agent(hooks = [...])]`: run in the agent
//! loop in declared order, with tool matchers, next to DIAL request hooks.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use hookwire::Decision;
use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::agent::{Runner, TraceEvent};
use hookwire::model::{ScriptedModel, Turn};
use serde_json::json;

static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Echoes its text.
#[hookwire::tool]
fn echo(text: String) -> String {
    text
}

/// Runs a command (never, in this test).
#[hookwire::tool]
fn shell(command: String) -> String {
    format!("ran {command}")
}

/// Records every tool it sees; declared first, so it runs first.
#[derive(Default)]
pub struct Recorder;

impl LifecycleHooks for Recorder {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        SEEN.lock().unwrap().push(format!("recorder:{}", cx.tool));
        Decision::Continue
    }
}

/// Denies what it is matched to.
#[derive(Default)]
pub struct Deny;

impl LifecycleHooks for Deny {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        SEEN.lock().unwrap().push(format!("deny:{}", cx.tool));
        Decision::Deny(format!("{} is not allowed here", cx.tool))
    }
}

/// An agent whose lifecycle hooks are declared in the attribute.
#[hookwire::agent(
    name = "ops",
    instruction = "Run things.",
    function_tools = [echo, shell],
    hooks = [Recorder, Deny(match = "shell")],
)]
pub struct Ops;

#[tokio::test]
async fn declared_lifecycle_hooks_run_in_order_and_only_where_they_match() {
    let model = ScriptedModel::from_turns([
        Turn::call("echo", json!({"text": "hi"})).and_call("shell", json!({"command": "rm -rf /"})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(Ops::new(), model);
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "done");
    let calls: Vec<(String, String, String)> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    tool,
                    decision,
                    result,
                    ..
                } = &**call;
                Some((
                    tool.to_string(),
                    decision.to_string(),
                    result.text_content(),
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(calls[0], ("echo".into(), "allowed".into(), "hi".into()));
    assert_eq!(calls[1].0, "shell");
    assert_eq!(calls[1].1, "denied");
    assert!(
        calls[1].2.contains("shell is not allowed here"),
        "{}",
        calls[1].2
    );
    let mut seen = SEEN.lock().unwrap().clone();
    seen.sort();
    assert_eq!(seen, ["deny:shell", "recorder:echo", "recorder:shell"]);
}

/// Each tool call of a run: the tool, what the model read, and what the
/// tool received when it was not what the model sent.
fn calls(out: &hookwire::agent::RunOutput) -> Vec<(String, String, Option<hookwire::ToolArgs>)> {
    out.trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    tool,
                    result,
                    received,
                    ..
                } = &**call;
                Some((tool.to_string(), result.text_content(), received.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Times out in `pre_tool_use`, after rewriting the arguments.
#[derive(Default)]
pub struct Hang;

impl LifecycleHooks for Hang {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        let _ = cx.args.insert("text", json!("hung"));
        tokio::time::sleep(std::time::Duration::from_secs(10)).await;
        Decision::Continue
    }
    fn name(&self) -> &'static str {
        "hang"
    }
}

/// Panics in `post_tool_use`.
#[derive(Default)]
pub struct Explode;

impl LifecycleHooks for Explode {
    async fn post_tool_use(&self, _cx: &mut hookwire::agent::lifecycle::PostToolUse<'_>) {
        panic!("exploded");
    }
    fn name(&self) -> &'static str {
        "explode"
    }
}

/// Lifecycle hooks with `on_failure` and `timeout_ms`: `Hang` closed (the
/// default in `pre_tool_use`) on `shell`, open on `echo`; `Explode` closed
/// on `echo`.
#[hookwire::agent(
    name = "guarded",
    instruction = "Run things.",
    function_tools = [echo, shell],
    hooks = [
        Hang(match = "shell", timeout_ms = 50),
        Hang(match = "echo", on_failure = "open", timeout_ms = 50),
        Explode(match = "echo", on_failure = "fail_closed"),
    ],
)]
pub struct GuardedOps;

#[tokio::test(start_paused = true)]
async fn declared_lifecycle_hooks_fail_by_their_policy_and_timeout() {
    let model = ScriptedModel::from_turns([
        Turn::call("shell", json!({"command": "ls"})).and_call("echo", json!({"text": "hi"})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(GuardedOps::new(), model);
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "done");
    assert_eq!(
        calls(&out),
        [
            (
                "shell".to_owned(),
                "tool call denied by `hang`: hook `hang` failed: pre_tool_use timed out after 50 ms"
                    .to_owned(),
                None
            ),
            // `echo` ran with the model's text (the open `Hang`'s rewrite was
            // undone), and `Explode`'s panic became the result.
            (
                "echo".to_owned(),
                "hook `explode` failed: post_tool_use panicked: exploded".to_owned(),
                None
            ),
        ]
    );
}

/// Denies every tool call it sees and records each final answer it sees.
#[derive(Default)]
pub struct AnswerOnly;

static ANSWERS: Mutex<Vec<String>> = Mutex::new(Vec::new());

impl LifecycleHooks for AnswerOnly {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        Decision::Deny(format!("answer_only saw {}", cx.tool))
    }
    async fn stop(
        &self,
        cx: &mut hookwire::agent::lifecycle::StopEvent<'_>,
    ) -> hookwire::agent::lifecycle::StopDecision {
        ANSWERS.lock().unwrap().push(cx.answer.to_owned());
        hookwire::agent::lifecycle::StopDecision::Allow
    }
    fn name(&self) -> &'static str {
        "answer_only"
    }
}

/// Denies `shell` calls and sees the final answer, never an `echo` call.
#[hookwire::agent(
    name = "answers",
    function_tools = [echo, shell],
    hooks = [AnswerOnly(match = "shell|step:final")],
)]
pub struct Answers;

#[tokio::test]
async fn a_step_matcher_selects_the_final_answer_and_a_name_the_tools_calls() {
    let model = ScriptedModel::from_turns([
        Turn::call("echo", json!({"text": "hi"})).and_call("shell", json!({"command": "ls"})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(Answers::new(), model);
    let out = runner.run("go").await.unwrap();
    let results: Vec<String> = calls(&out).into_iter().map(|(_, r, _)| r).collect();
    assert_eq!(
        results,
        [
            "hi",
            "tool call denied by `answer_only`: answer_only saw shell"
        ]
    );
    assert_eq!(*ANSWERS.lock().unwrap(), ["done"]);
}

/// Appends its number to `ORDER` at every `pre_tool_use`.
macro_rules! numbered_hooks {
    ($($name:ident = $n:literal),+ $(,)?) => {$(
        /// A hook that records its number.
        #[derive(Default)]
        pub struct $name;

        impl LifecycleHooks for $name {
            async fn pre_tool_use(&self, _cx: &mut PreToolUse<'_>) -> Decision {
                ORDER.lock().unwrap().push($n);
                Decision::Continue
            }
        }
    )+};
}

static ORDER: Mutex<Vec<u32>> = Mutex::new(Vec::new());

numbered_hooks!(
    N1 = 1,
    N2 = 2,
    N3 = 3,
    N4 = 4,
    N5 = 5,
    N6 = 6,
    N7 = 7,
    N8 = 8,
    N9 = 9,
    N10 = 10,
    N11 = 11,
    N12 = 12,
    N13 = 13,
    N14 = 14,
);

/// More lifecycle hooks than the largest tuple the runtime implements
/// `LifecycleHooks` for (twelve): the generated code nests tuples.
#[hookwire::agent(
    name = "many",
    function_tools = [echo],
    hooks = [N1, N2, N3, N4, N5, N6, N7, N8, N9, N10, N11, N12, N13, N14],
)]
pub struct Many;

#[tokio::test]
async fn fourteen_lifecycle_hooks_compile_and_run_in_declared_order() {
    let model = ScriptedModel::from_turns([
        Turn::call("echo", json!({"text": "hi"})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(Many::new(), model);
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "done");
    assert_eq!(*ORDER.lock().unwrap(), (1..=14).collect::<Vec<u32>>());
}
