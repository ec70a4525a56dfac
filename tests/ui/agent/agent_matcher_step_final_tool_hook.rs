use hookwire::agent::lifecycle::LifecycleHooks;
use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Echoes.
#[hookwire::tool]
fn echo(text: String) -> String {
    text
}

/// Audits.
#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    next.run(cx, args).await
}

/// Checks the final answer.
#[derive(Default)]
struct Check;

impl LifecycleHooks for Check {}

// `step:final` is fine on a lifecycle hook; a tool hook never sees it.
#[hookwire::agent(
    name = "ops",
    function_tools = [echo],
    tool_hooks = [audit(match = "echo|step:final")],
    hooks = [Check(match = "step:final", on_failure = "open", timeout_ms = 50)],
)]
struct Ops;

fn main() {
    let _ = Ops::new();
}
