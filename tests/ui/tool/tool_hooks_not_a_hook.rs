use hookwire::{Decision, ToolArgs, ToolContext};

/// Gates calls.
#[hookwire::hook]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

#[derive(Default)]
struct NotAHook;

/// Adds one.
#[hookwire::tool(tool_hooks = [gate, NotAHook])]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

fn main() {}
