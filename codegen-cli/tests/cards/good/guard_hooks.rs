//! Lifecycle hooks that fail, for the `Guard-Desk` card's `on_failure` and
//! `timeout_ms` entries.

use hookwire::Decision;
use hookwire::agent::lifecycle::{LifecycleHooks, PostToolUse, PreToolUse};

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
