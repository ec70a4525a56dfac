use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Audits.
#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    next.run(cx, args).await
}

// The lock pins `bank`'s tools (`balance`, `transfer`); the path is relative
// to the crate's folder, which trybuild makes under `target/tests/trybuild/`.
#[hookwire::agent(
    name = "teller",
    servers = ["bank"],
    mcp_lock = "../../../../tests/ui/agent/lock/hookwire.lock",
    tool_hooks = [audit(match = "bank__transfr")],
)]
struct Teller;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Teller::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
