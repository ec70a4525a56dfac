use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext};
/// A.
pub async fn audit<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome { next.run(cx, args).await }
