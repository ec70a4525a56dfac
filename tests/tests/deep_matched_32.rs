//! 32 agent-level matched hooks on one tool: as deep as 32 plain hooks
//! (which need `#![recursion_limit = "256"]`, see BENCHMARKS.md), and no
//! deeper.
#![recursion_limit = "256"]
#![allow(clippy::unwrap_used)]

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
/// Tags results with `17`.
#[hookwire::hook]
async fn h17(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 17");
    }
    outcome
}
/// Tags results with `18`.
#[hookwire::hook]
async fn h18(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 18");
    }
    outcome
}
/// Tags results with `19`.
#[hookwire::hook]
async fn h19(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 19");
    }
    outcome
}
/// Tags results with `20`.
#[hookwire::hook]
async fn h20(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 20");
    }
    outcome
}
/// Tags results with `21`.
#[hookwire::hook]
async fn h21(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 21");
    }
    outcome
}
/// Tags results with `22`.
#[hookwire::hook]
async fn h22(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 22");
    }
    outcome
}
/// Tags results with `23`.
#[hookwire::hook]
async fn h23(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 23");
    }
    outcome
}
/// Tags results with `24`.
#[hookwire::hook]
async fn h24(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 24");
    }
    outcome
}
/// Tags results with `25`.
#[hookwire::hook]
async fn h25(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 25");
    }
    outcome
}
/// Tags results with `26`.
#[hookwire::hook]
async fn h26(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 26");
    }
    outcome
}
/// Tags results with `27`.
#[hookwire::hook]
async fn h27(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 27");
    }
    outcome
}
/// Tags results with `28`.
#[hookwire::hook]
async fn h28(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 28");
    }
    outcome
}
/// Tags results with `29`.
#[hookwire::hook]
async fn h29(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 29");
    }
    outcome
}
/// Tags results with `30`.
#[hookwire::hook]
async fn h30(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 30");
    }
    outcome
}
/// Tags results with `31`.
#[hookwire::hook]
async fn h31(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 31");
    }
    outcome
}
/// Tags results with `32`.
#[hookwire::hook]
async fn h32(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" 32");
    }
    outcome
}

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
