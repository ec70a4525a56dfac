//! Long chains compile at rustc's default recursion limit and run in
//! order: one tool behind 40 agent-level hooks, and one behind 40 of
//! them and 30 hooks of its own; and the chain an agent with MCP servers
//! puts around a tool found at run time, with 24 matched hooks (each
//! evaluated per call, in a `When`, which nests deeper still).
//!
//! A chain is one nested type, and so is its future; rustc's layout
//! queries go some six levels deeper per `async` hook, and a chain of more
//! than about twenty hooks used to fail with "queries overflow the depth
//! limit!". The generated code cuts long chains into segments with
//! `hookwire::hooks::Boxed` (every twelve agent-level hooks, every eight of a
//! tool's own). This file is its own crate, with no `recursion_limit`
//! attribute: it stops compiling if the segments go.
#![allow(clippy::unwrap_used)]

use hookwire::agent::Agent;
mod deep_common;

use hookwire::{CallScope, ToolArgs, ToolCall, ToolSet};

/// Adds one to `x`.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// Adds two to `x`, behind 30 hooks of its own.
#[hookwire::tool(tool_hooks = [o01, o02, o03, o04, o05, o06, o07, o08, o09, o10, o11, o12, o13, o14, o15, o16, o17, o18, o19, o20, o21, o22, o23, o24, o25, o26, o27, o28, o29, o30])]
fn add_two(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 2)
}

deep_common::tag_hooks!(
    h01 = 1,
    h02 = 2,
    h03 = 3,
    h04 = 4,
    h05 = 5,
    h06 = 6,
    h07 = 7,
    h08 = 8,
    h09 = 9,
    h10 = 10,
    h11 = 11,
    h12 = 12,
    h13 = 13,
    h14 = 14,
    h15 = 15,
    h16 = 16,
    h17 = 17,
    h18 = 18,
    h19 = 19,
    h20 = 20,
    h21 = 21,
    h22 = 22,
    h23 = 23,
    h24 = 24,
    h25 = 25,
    h26 = 26,
    h27 = 27,
    h28 = 28,
    h29 = 29,
    h30 = 30,
    h31 = 31,
    h32 = 32,
    h33 = 33,
    h34 = 34,
    h35 = 35,
    h36 = 36,
    h37 = 37,
    h38 = 38,
    h39 = 39,
    h40 = 40
);
deep_common::tag_hooks!(
    o01 = 101,
    o02 = 102,
    o03 = 103,
    o04 = 104,
    o05 = 105,
    o06 = 106,
    o07 = 107,
    o08 = 108,
    o09 = 109,
    o10 = 110,
    o11 = 111,
    o12 = 112,
    o13 = 113,
    o14 = 114,
    o15 = 115,
    o16 = 116,
    o17 = 117,
    o18 = 118,
    o19 = 119,
    o20 = 120,
    o21 = 121,
    o22 = 122,
    o23 = 123,
    o24 = 124,
    o25 = 125,
    o26 = 126,
    o27 = 127,
    o28 = 128,
    o29 = 129,
    o30 = 130
);

/// Two tools behind 40 matched hooks each.
#[hookwire::agent(name = "deeper", function_tools = [add_one, add_two], tool_hooks = [h01(match = "add_one|add_two"), h02(match = "add_one|add_two"), h03(match = "add_one|add_two"), h04(match = "add_one|add_two"), h05(match = "add_one|add_two"), h06(match = "add_one|add_two"), h07(match = "add_one|add_two"), h08(match = "add_one|add_two"), h09(match = "add_one|add_two"), h10(match = "add_one|add_two"), h11(match = "add_one|add_two"), h12(match = "add_one|add_two"), h13(match = "add_one|add_two"), h14(match = "add_one|add_two"), h15(match = "add_one|add_two"), h16(match = "add_one|add_two"), h17(match = "add_one|add_two"), h18(match = "add_one|add_two"), h19(match = "add_one|add_two"), h20(match = "add_one|add_two"), h21(match = "add_one|add_two"), h22(match = "add_one|add_two"), h23(match = "add_one|add_two"), h24(match = "add_one|add_two"), h25(match = "add_one|add_two"), h26(match = "add_one|add_two"), h27(match = "add_one|add_two"), h28(match = "add_one|add_two"), h29(match = "add_one|add_two"), h30(match = "add_one|add_two"), h31(match = "add_one|add_two"), h32(match = "add_one|add_two"), h33(match = "add_one|add_two"), h34(match = "add_one|add_two"), h35(match = "add_one|add_two"), h36(match = "add_one|add_two"), h37(match = "add_one|add_two"), h38(match = "add_one|add_two"), h39(match = "add_one|add_two"), h40(match = "add_one|add_two")])]
pub struct Deeper;

fn call(tool: &str) -> String {
    let deeper = Deeper::new();
    let call = ToolCall::new("c1", tool, ToolArgs::from_json(r#"{"x": 1}"#));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(deeper.tools().call(&CallScope::new("deeper"), call))
        .text_content()
}

#[test]
fn forty_hooks_on_one_tool_compile_and_run_in_order() {
    // The innermost hook tags first: `h40`, ..., `h01`.
    let tags: String = (1..=40).rev().map(|i| format!(" {i}")).collect();
    assert_eq!(call("add_one"), format!("2{tags}"));
}

#[test]
fn a_tools_own_hooks_run_inside_the_agents_and_in_order() {
    let own: String = (101..=130).rev().map(|i| format!(" {i}")).collect();
    let agent: String = (1..=40).rev().map(|i| format!(" {i}")).collect();
    assert_eq!(call("add_two"), format!("3{own}{agent}"));
}

/// 24 matched hooks around the tools its server `time` offers.
#[hookwire::agent(name = "timed", servers = ["time"], tool_hooks = [h01(match = "time__now"), h02(match = "time__now"), h03(match = "time__now"), h04(match = "time__now"), h05(match = "time__now"), h06(match = "time__now"), h07(match = "time__now"), h08(match = "time__now"), h09(match = "time__now"), h10(match = "time__now"), h11(match = "time__now"), h12(match = "time__now"), h13(match = "time__now"), h14(match = "time__now"), h15(match = "time__now"), h16(match = "time__now"), h17(match = "time__now"), h18(match = "time__now"), h19(match = "time__now"), h20(match = "time__now"), h21(match = "time__now"), h22(match = "time__now"), h23(match = "time__now"), h24(match = "time__now")])]
pub struct Timed;

#[test]
fn twenty_four_matched_hooks_around_a_tool_found_at_run_time_compile_and_run_in_order() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct NoArgs {}
    let now = hookwire::ToolHandler(hookwire::FnTool::new(
        "time__now",
        "The time.",
        |_: NoArgs| async { "noon".to_owned() },
    ));
    let timed = Timed::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut cx = hookwire::ToolContext::new("time__now", hookwire::ToolSource::Mcp, "c1");
    let outcome = rt.block_on(timed.call_dynamic(&mut cx, ToolArgs::from_json("{}"), &now));
    let tags: String = (1..=24).rev().map(|i| format!(" {i}")).collect();
    assert_eq!(outcome.unwrap().text_content(), format!("noon{tags}"));
}

#[test]
fn an_approval_gate_outside_the_segments_still_sees_the_tool() {
    // The loop's approval gate finds the tool's argument type (to show
    // its metadata and check an edited approval) through every layer,
    // `Boxed` segments included.
    let deeper = Deeper::new();
    for tool in ["add_one", "add_two"] {
        assert!(deeper.tools().tool_view(tool).is_some(), "{tool}");
    }
}
