use hookwire::{Decision, ToolArgs, ToolContext};

/// Gates calls.
#[hookwire::hook]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

/// Adds one. A tool's chain hooks are `tool_hooks`, as on `#[agent]` and
/// in cards; the old `hooks` is one error on the key, naming the new one.
#[hookwire::tool(hooks = [gate])]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

fn main() {}
