//! Hooks.
use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext};

/// Audits.
pub async fn audit<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<N>) -> Outcome {
    next.run(cx, args).await
}
