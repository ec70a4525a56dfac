//! Lifecycle hooks that fail, for the `Guard-Desk` card's `on_failure` and
//! `timeout_ms` entries.

use hookwire::Decision;
use hookwire::agent::lifecycle::{
    LifecycleHooks, PostToolUse, PreToolUse, StopDecision, StopEvent,
};

/// Never decides: waits ten seconds in `pre_tool_use` (the card gives it a
/// 50 ms timeout).
#[derive(Debug, Default)]
pub struct Hang;

impl LifecycleHooks for Hang {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        // What a skipped hook must not leave behind.
        let _ = cx.args.insert("project", "hung".into());
        tokio::time::sleep(std::time::Duration::from_secs(10)).await;
        Decision::Continue
    }

    fn name(&self) -> &'static str {
        "hang"
    }
}

/// Panics in `post_tool_use`.
#[derive(Debug, Default)]
pub struct Explode;

impl LifecycleHooks for Explode {
    async fn post_tool_use(&self, _cx: &mut PostToolUse<'_>) {
        panic!("exploded");
    }

    fn name(&self) -> &'static str {
        "explode"
    }
}

/// Matched to `step:final`: denies every tool call it sees (it must see
/// none) and, at the first final answer, asks the model to check it.
#[derive(Debug, Default)]
pub struct AnswerCheck;

impl LifecycleHooks for AnswerCheck {
    async fn pre_tool_use(&self, _cx: &mut PreToolUse<'_>) -> Decision {
        Decision::Deny("answer_check saw a tool call".into())
    }

    async fn stop(&self, cx: &mut StopEvent<'_>) -> StopDecision {
        if cx.forced_continues == 0 {
            StopDecision::Continue("check the answer".into())
        } else {
            StopDecision::Allow
        }
    }
}
