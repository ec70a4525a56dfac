//! Hooks.
use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext};

/// Audits.
pub async fn audit<N>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome
where
    N: Handler + Clone,
{
    next.run(cx, args).await
}
