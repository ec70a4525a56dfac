//! Hooks.
use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext};

/// Passes the call on.
pub async fn pass<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    next.run(cx, args).await
}
