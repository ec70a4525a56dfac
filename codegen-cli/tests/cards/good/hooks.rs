//! Hooks for the PMO cards.
use hookwire::{Decision, Handler, Next, Outcome, ToolArgs, ToolContext};

/// Tags every result with `[audit]`.
pub async fn audit_hook<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" [audit]");
    }
    outcome
}

/// Clamps `x` to at most 10.
pub async fn clamp(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    if args.get("x").and_then(|v| v.as_i64()).is_some_and(|x| x > 10) {
        let _ = args.insert("x", 10.into());
    }
    Decision::Continue
}

/// Tags every result with `[tag]` (declared after `audit_hook`, so it runs
/// inside it).
pub async fn tag<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" [tag]");
    }
    outcome
}
