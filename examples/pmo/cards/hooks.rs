//! The PMO example's audit hook: referenced by the cards as
//! `hooks.rs:audit_hook`, and wrapped with `#[hookwire::hook]` by the
//! `#[agent]` form of the example.

use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext, ToolError};

/// Audits every tool call: clamps `add_one`'s `x` to at most 10 before the
/// call, blocks the shell tool instead of running it, and appends `[audit]`
/// to every result after the call.
pub async fn audit_hook<N: Handler>(
    cx: &mut ToolContext,
    mut args: ToolArgs,
    next: Next<'_, N>,
) -> Outcome {
    // Before: rewrite arguments.
    if cx.tool() == "add_one"
        && args
            .get("x")
            .and_then(|v| v.as_i64())
            .is_some_and(|x| x > 10)
    {
        args.insert("x", 10.into())?;
    }
    // Instead: block the shell tool.
    if cx.tool() == "shell" {
        return Err(ToolError::Denied {
            reason: "the shell tool is blocked by the audit policy".into(),
            hook: Some("audit_hook".into()),
        });
    }
    // After: tag the result.
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" [audit]");
    }
    outcome
}
