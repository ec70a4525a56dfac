//! Hooks.
use hookwire::{Outcome, ToolArgs, ToolContext};

/// Audits.
#[hookwire::hook]
pub async fn audit(cx: &mut ToolContext, args: ToolArgs) -> Outcome {
    let _ = (cx, args);
    todo!()
}
