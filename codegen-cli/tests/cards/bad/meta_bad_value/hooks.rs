use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext};
/// Blocks the shell.
pub async fn no_shell<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    next.run(cx, args).await
}
