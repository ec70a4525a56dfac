//! Hooks.
use hookwire::{Handler, Next, ToolArgs, ToolContext};

/// Not hookwire's outcome.
pub type Outcome = String;

/// Audits.
pub async fn audit<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    let _ = next.run(cx, args).await;
    String::new()
}
