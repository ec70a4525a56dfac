//! The audit trail: structured `tracing` events, target `hookwire::audit`,
//! for every decision and every call's final outcome.

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::hook::{Handler, Hook, Next};
use crate::prepost::Decision;

/// Emits one `tracing` event (target `hookwire::audit`, level INFO) per
/// call with its final decision (`allowed`, `denied`, `stopped`, `error`),
/// the hook that made it, and the elapsed time. Put it outermost to see
/// every other hook's decision.
#[derive(Debug, Clone, Copy, Default)]
pub struct Audit;

impl Hook for Audit {
    /// It passes the arguments on as it received them.
    const REWRITES: bool = false;

    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let started = std::time::Instant::now();
        let outcome = next.run(cx, args).await;
        let (decision, hook, error) = match &outcome {
            Ok(result) if result.is_error => ("error", None, None),
            Ok(_) => ("allowed", None, None),
            Err(e) => (
                match e.kind() {
                    "denied" => "denied",
                    "stopped" => "stopped",
                    _ => "error",
                },
                e.hook(),
                Some(e.to_string()),
            ),
        };
        tracing::info!(
            target: "hookwire::audit",
            agent = cx.agent(),
            tool = cx.tool(),
            source = cx.source().as_str(),
            server = cx.server(),
            tool_use_id = cx.tool_use_id(),
            correlation_id = cx.correlation_id(),
            decision,
            hook,
            error,
            elapsed_us = started.elapsed().as_micros() as u64,
            "tool call"
        );
        outcome
    }

    fn name(&self) -> &'static str {
        "audit"
    }
}

/// Records a pre hook's decision (called by [`Pre`](crate::Pre)).
pub(crate) fn record_decision(cx: &ToolContext, hook: &str, decision: &Decision) {
    let reason = match decision {
        Decision::Deny(r) | Decision::Ask(r) | Decision::Stop(r) => Some(r.as_str()),
        _ => None,
    };
    tracing::debug!(
        target: "hookwire::audit",
        agent = cx.agent(),
        tool = cx.tool(),
        tool_use_id = cx.tool_use_id(),
        hook,
        decision = decision.kind(),
        reason,
        "hook decision"
    );
}
