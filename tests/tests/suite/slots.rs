//! Generated agents hold each listed hook and child through a slot
//! (`Slotted<Marker>`, `Child<Marker>`, which forward to what they hold);
//! these tests pin what the forwarding must keep: a hook's own name where
//! the runtime reports it, a child's lifecycle hooks, and every part of a
//! child that the loop asks for.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};

use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::agent::{Agent, Runner, TraceEvent};
use hookwire::declare::GeneratedAgent;
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{Decision, Next, Outcome, ToolArgs, ToolContext, ToolSet, ToolSource};
use serde_json::json;

/// Calls of `counted` in this test binary.
static COUNTED: AtomicUsize = AtomicUsize::new(0);

/// Counts its calls.
#[hookwire::tool]
fn counted(x: i64) -> String {
    COUNTED.fetch_add(1, Ordering::SeqCst);
    x.to_string()
}

/// Takes longer than the limit its entry gives it.
#[hookwire::hook]
async fn stall(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    next.run(cx, args).await
}

/// Echoes its text.
#[hookwire::tool]
fn echo(text: String) -> String {
    text
}

/// An agent whose hook has a 10 ms limit (`Guarded<Slotted<..>>`).
#[hookwire::agent(name = "patient", function_tools = [echo], tool_hooks = [stall(timeout_ms = 10)])]
pub struct Patient;

#[tokio::test(start_paused = true)]
async fn a_hook_in_an_agent_times_out_under_its_own_name() {
    let model = ScriptedModel::from_turns([
        Turn::call("echo", json!({"text": "hi"})),
        Turn::text("done"),
    ]);
    let out = Runner::new(Patient::new(), model).run("go").await.unwrap();
    let results: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some(call.result.text_content()),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["hook `stall` timed out after 10 ms"]);
}

/// Denies every tool call of the agent it belongs to.
#[derive(Default)]
pub struct DenyAll;

impl LifecycleHooks for DenyAll {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        Decision::Deny(format!("{} is not allowed in the child", cx.tool))
    }
}

/// Logs nothing; only its name is looked at.
#[hookwire::hook]
async fn tag(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
    Decision::Continue
}

/// A child with a lifecycle hook and a tool hook of its own.
#[hookwire::agent(
    name = "kid",
    instruction = "Count.",
    function_tools = [counted],
    tool_hooks = [tag],
    hooks = [DenyAll],
)]
pub struct Kid;

/// A parent that delegates to the child.
#[hookwire::agent(name = "parent", instruction = "Delegate.", agents = [Kid(name = "kid")])]
pub struct Parent;

#[tokio::test]
async fn a_child_runs_its_own_lifecycle_hooks_when_its_parent_calls_it() {
    let before = COUNTED.load(Ordering::SeqCst);
    let model = ScriptedModel::from_turns([
        Turn::call("agent__kid", json!({"message": "count 1"})),
        // The child's turns (the parent's model, shared).
        Turn::call("counted", json!({"x": 1})),
        Turn::text("the tool was refused"),
        Turn::text("the child could not count"),
    ]);
    let out = Runner::new(Parent::new(), model).run("go").await.unwrap();
    assert_eq!(out.text, "the child could not count");
    assert_eq!(
        COUNTED.load(Ordering::SeqCst),
        before,
        "the child's DenyAll ran: `counted` never did"
    );
}

/// A slot for `Kid`, as `#[agent]` writes one for `agents = [Kid]`.
struct KidSlot;

impl hookwire::__private::slot::AgentSlot for KidSlot {
    type Deps = ();
    type Agent = Kid;

    fn build(_: &()) -> Kid {
        Kid::new()
    }
}

#[test]
fn a_child_through_its_slot_is_the_child() {
    let child = hookwire::__private::slot::Child::<KidSlot>::new(&());
    let kid = Kid::new();
    assert_eq!(
        <hookwire::__private::slot::Child<KidSlot> as GeneratedAgent>::NAME,
        "kid"
    );
    assert_eq!(child.config().name, kid.config().name);
    assert_eq!(child.config().instruction, "Count.");
    assert_eq!(
        child.hooks_for("counted", ToolSource::Function),
        ["tag"],
        "the child's hooks, for its trace"
    );
    assert_eq!(
        child.hooks_for("counted", ToolSource::Function),
        kid.hooks_for("counted", ToolSource::Function)
    );
    assert_eq!(
        child.tools().definitions().len(),
        1,
        "the child's own tool set"
    );
    assert_eq!(child.warnings(), kid.warnings());
}
