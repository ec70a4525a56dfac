use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Audits; its context is behind a `cfg` that is never on.
#[hookwire::hook]
async fn audit<N: hookwire::Handler>(
    #[cfg(any())] cx: &mut ToolContext,
    args: ToolArgs,
    next: Next<'_, N>,
) -> Outcome {
    next.run(cx, args).await
}

fn main() {}
