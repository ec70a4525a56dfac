//! The shop card's hook, written as the README writes hooks: marked
//! `#[hookwire::hook]` (the card uses the type the attribute makes).
use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Stamps every result the model reads.
#[hookwire::hook]
pub async fn stamp(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" [stamped]");
    }
    outcome
}

/// Flags the results of the high-risk tools (the card matches it with
/// `meta:risk=high`: `shop.rs:refund` only).
#[hookwire::hook]
pub async fn flag_risky(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" [risky]");
    }
    outcome
}
