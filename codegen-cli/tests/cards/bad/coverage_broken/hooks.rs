use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Audits.
pub async fn audit<N: hookwire::Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    next.run(cx, args).await
}
