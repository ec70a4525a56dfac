//! Hooks.
use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Not hookwire's handler.
pub trait Handler {}

/// Audits.
pub async fn audit<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    next.run(cx, args).await
}
