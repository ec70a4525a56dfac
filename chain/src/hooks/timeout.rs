use std::time::Duration;

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::hook::{Handler, Hook, Next};

/// Limits how long everything inside it (inner hooks and the tool) may take;
/// past the limit the call is cancelled and ends in [`ToolError::TimedOut`].
///
/// Like every time limit of hookwire it runs through
/// [`wait::limit`](crate::wait::limit): the time an approval gate inside
/// it waits for a person does not count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout {
    after: Duration,
}

impl Timeout {
    /// A timeout of `after`.
    pub const fn new(after: Duration) -> Self {
        Self { after }
    }

    /// A timeout in milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        Self::new(Duration::from_millis(ms))
    }
}

impl Hook for Timeout {
    /// It passes the arguments on as it received them.
    const REWRITES: bool = false;

    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        match crate::wait::limit(self.after, next.run(cx, args)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(ToolError::TimedOut {
                what: format!("tool `{}`", cx.tool()),
                after: self.after,
            }),
        }
    }

    fn name(&self) -> &'static str {
        "timeout"
    }
}
