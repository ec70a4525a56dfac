use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext};
/// Audits.
pub async fn audit<N: Handler>(#[cfg(any())] cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    next.run(cx, args).await
}
