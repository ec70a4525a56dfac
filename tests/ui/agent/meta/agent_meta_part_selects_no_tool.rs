use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Deletes.
#[hookwire::tool(meta(risk = "high"))]
fn delete(path: String) -> String {
    path
}

/// Reads.
#[hookwire::tool]
fn read(path: String) -> String {
    path
}

/// Guards.
#[hookwire::hook]
async fn guard(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    next.run(cx, args).await
}

#[hookwire::agent(
    name = "ops",
    function_tools = [delete, read],
    tool_hooks = [guard(match = "read|meta:risk=hgih")],
)]
struct Ops;

fn main() {
    let _ = Ops::new();
}
