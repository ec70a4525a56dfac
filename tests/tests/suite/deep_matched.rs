#![allow(clippy::unwrap_used)]
//! 16 agent-level hooks that each select the tool by a `match`, on one
//! tool, compile under rustc's default recursion limit (they cost what
//! plain hooks cost: the match is resolved when the code is generated) and
//! run in declared order.

use crate::deep_common;
use hookwire::agent::Agent;

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
    h16 = 16
);

/// One tool behind 16 matched hooks.
#[hookwire::agent(name = "deep", function_tools = [add_one], tool_hooks = [h01(match = "add_one"), h02(match = "add_one"), h03(match = "add_one"), h04(match = "add_one"), h05(match = "add_one"), h06(match = "add_one"), h07(match = "add_one"), h08(match = "add_one"), h09(match = "add_one"), h10(match = "add_one"), h11(match = "add_one"), h12(match = "add_one"), h13(match = "add_one"), h14(match = "add_one"), h15(match = "add_one"), h16(match = "add_one")])]
pub struct Deep;

#[test]
fn sixteen_matched_hooks_on_one_tool_compile_and_run_in_order() {
    let deep = Deep::new();
    let call = ToolCall::new("c1", "add_one", ToolArgs::from_json(r#"{"x": 1}"#));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let result = rt.block_on(deep.tools().call(&CallScope::new("deep"), call));
    let tags: String = (1..=16).rev().map(|i| format!(" {i}")).collect();
    assert_eq!(result.text_content(), format!("2{tags}"));
}
