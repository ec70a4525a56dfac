/// Audit.
pub async fn audit(cx: &mut hookwire::ToolContext, args: hookwire::ToolArgs, next: hookwire::Next<'_>) -> hookwire::Outcome { next.run(cx, args).await }
