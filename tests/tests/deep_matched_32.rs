//! 32 agent-level matched hooks on one tool: as deep as 32 plain hooks
//! (which need `#![recursion_limit = "256"]`, see BENCHMARKS.md), and no
//! deeper.
#![recursion_limit = "256"]
#![allow(clippy::unwrap_used)]

use hookwire::agent::Agent;
mod deep_common;

use hookwire::{CallScope, ToolArgs, ToolCall, ToolSet};

/// Adds one to `x`.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
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
    h32 = 32
);

/// One tool behind 32 matched hooks.
#[hookwire::agent(name = "deeper", function_tools = [add_one], tool_hooks = [h01(match = "add_one"), h02(match = "add_one"), h03(match = "add_one"), h04(match = "add_one"), h05(match = "add_one"), h06(match = "add_one"), h07(match = "add_one"), h08(match = "add_one"), h09(match = "add_one"), h10(match = "add_one"), h11(match = "add_one"), h12(match = "add_one"), h13(match = "add_one"), h14(match = "add_one"), h15(match = "add_one"), h16(match = "add_one"), h17(match = "add_one"), h18(match = "add_one"), h19(match = "add_one"), h20(match = "add_one"), h21(match = "add_one"), h22(match = "add_one"), h23(match = "add_one"), h24(match = "add_one"), h25(match = "add_one"), h26(match = "add_one"), h27(match = "add_one"), h28(match = "add_one"), h29(match = "add_one"), h30(match = "add_one"), h31(match = "add_one"), h32(match = "add_one")])]
pub struct Deeper;

#[test]
fn thirty_two_matched_hooks_on_one_tool_compile_and_run_in_order() {
    let deeper = Deeper::new();
    let call = ToolCall::new("c1", "add_one", ToolArgs::from_json(r#"{"x": 1}"#));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let result = rt.block_on(deeper.tools().call(&CallScope::new("deeper"), call));
    let tags: String = (1..=32).rev().map(|i| format!(" {i}")).collect();
    assert_eq!(result.text_content(), format!("2{tags}"));
}
