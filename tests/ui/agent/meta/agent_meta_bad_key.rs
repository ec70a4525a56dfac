use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Reads.
#[hookwire::tool(meta(risk = "low"))]
fn read(path: String) -> String {
    path
}

/// Guards.
#[hookwire::hook]
async fn guard(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    next.run(cx, args).await
}

#[hookwire::agent(name = "ops", function_tools = [read], tool_hooks = [guard(match = "meta:ri$k")])]
struct Ops;

fn main() {
    let _ = Ops::new();
}
