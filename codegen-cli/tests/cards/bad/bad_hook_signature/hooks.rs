//! Hooks.
use hookwire::{Outcome, ToolArgs, ToolContext};

/// Not async.
pub fn audit(cx: &mut ToolContext, args: ToolArgs) -> Outcome {
    todo!()
}
