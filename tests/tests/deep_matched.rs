#![allow(clippy::unwrap_used)]
//! 16 agent-level hooks that each select the tool by a `match`, on one
//! tool, compile under rustc's default recursion limit (they cost what
//! plain hooks cost: the match is resolved when the code is generated) and
//! run in declared order.

use hookwire::agent::AgentDecl;
use hookwire::{CallScope, Next, Outcome, ToolArgs, ToolCall, ToolContext, ToolSet};

/// Adds one to `x`.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}
/// Tags results with `1`.
#[hookwire::hook]
async fn h01(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 1");
    }
    outcome
}
/// Tags results with `2`.
#[hookwire::hook]
async fn h02(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 2");
    }
    outcome
}
/// Tags results with `3`.
#[hookwire::hook]
async fn h03(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 3");
    }
    outcome
}
/// Tags results with `4`.
#[hookwire::hook]
async fn h04(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 4");
    }
    outcome
}
/// Tags results with `5`.
#[hookwire::hook]
async fn h05(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 5");
    }
    outcome
}
/// Tags results with `6`.
#[hookwire::hook]
async fn h06(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 6");
    }
    outcome
}
/// Tags results with `7`.
#[hookwire::hook]
async fn h07(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 7");
    }
    outcome
}
/// Tags results with `8`.
#[hookwire::hook]
async fn h08(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 8");
    }
    outcome
}
/// Tags results with `9`.
#[hookwire::hook]
async fn h09(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 9");
    }
    outcome
}
/// Tags results with `10`.
#[hookwire::hook]
async fn h10(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 10");
    }
    outcome
}
/// Tags results with `11`.
#[hookwire::hook]
async fn h11(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 11");
    }
    outcome
}
/// Tags results with `12`.
#[hookwire::hook]
async fn h12(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 12");
    }
    outcome
}
/// Tags results with `13`.
#[hookwire::hook]
async fn h13(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 13");
    }
    outcome
}
/// Tags results with `14`.
#[hookwire::hook]
async fn h14(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 14");
    }
    outcome
}
/// Tags results with `15`.
#[hookwire::hook]
async fn h15(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 15");
    }
    outcome
}
/// Tags results with `16`.
#[hookwire::hook]
async fn h16(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 16");
    }
    outcome
}

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
