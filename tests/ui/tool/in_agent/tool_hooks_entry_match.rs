use hookwire::{Decision, ToolArgs, ToolContext};

/// Gates calls.
#[hookwire::hook]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

/// Adds one.
#[hookwire::tool(tool_hooks = [gate(on_failure = "open", timeot_ms = 5)])]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

#[hookwire::agent(name = "calc", function_tools = [add_one])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
