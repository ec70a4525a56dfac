//! A deep declaration compiles and runs: a parent with 16 tool hooks whose
//! child agent has 16 tool hooks of its own, both run by `Runner` inside an
//! `async` block.
//!
//! The point of this test is that it *compiles* under rustc's default
//! recursion limit (128). A chain is one nested type, so its future nests
//! every layer, and rustc's layout queries go about seven levels deeper per
//! `async` hook (a coroutine's layout needs its optimized MIR, which needs
//! the layouts inside it). Two things keep 16 hooks in bounds, and this test
//! fails if either regresses: a `#[hook]` adds no `async` level of its own
//! (it used to add two), and the runner and the agent-as-tool boundary box
//! the future they run, so the loop's depth and a child's do not add to the
//! chain's. 16 hooks on one tool sit between 117 and 128; more need
//! `#![recursion_limit = "256"]` in the crate that declares the agent. The
//! run itself checks that every layer ran, in order, in both agents.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use hookwire::agent::Runner;
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{Json, Next, Outcome, ToolArgs, ToolContext};
use serde_json::json;

static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Adds one to `x`.
#[hookwire::tool]
fn add_one(x: i64) -> Json<i64> {
    Json(x + 1)
}

macro_rules! layers {
    ($($name:ident),* $(,)?) => {$(
        /// Records that it ran, around the rest of the chain.
        #[hookwire::hook]
        async fn $name(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
            LOG.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(format!("{}:{}", cx.agent(), stringify!($name)));
            next.run(cx, args).await
        }
    )*};
}

layers!(
    h01, h02, h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16
);

/// The child: `add_one` behind 16 hooks.
#[hookwire::agent(
    name = "child",
    instruction = "Add.",
    function_tools = [add_one],
    tool_hooks = [h01, h02, h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16],
)]
pub struct Child;

/// The parent: `add_one` and the child, behind 16 hooks.
#[hookwire::agent(
    name = "parent",
    instruction = "Delegate.",
    function_tools = [add_one],
    agents = [Child(name = "child")],
    tool_hooks = [h01, h02, h03, h04, h05, h06, h07, h08, h09, h10, h11, h12, h13, h14, h15, h16],
)]
pub struct Parent;

#[tokio::test]
async fn sixteen_hooks_in_a_parent_and_its_child_compile_and_run_in_order() {
    let model = ScriptedModel::from_turns([
        // The parent's first step calls the child, whose model (the
        // parent's, shared) plays the next two turns.
        Turn::call("agent__child", json!({"message": "add one to 41"})),
        Turn::call("add_one", json!({"x": 41})),
        Turn::text("42"),
        Turn::text("the child says 42"),
    ]);
    let out = Runner::new(Parent::new(), model).run("go").await.unwrap();
    assert_eq!(out.text, "the child says 42");

    let log = std::mem::take(&mut *LOG.lock().unwrap());
    let expected: Vec<String> = (1..=16)
        .map(|i| format!("parent:h{i:02}"))
        .chain((1..=16).map(|i| format!("child:h{i:02}")))
        .collect();
    assert_eq!(log, expected);
}
