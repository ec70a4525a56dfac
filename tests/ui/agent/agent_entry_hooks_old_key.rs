use hookwire::{Decision, ToolArgs, ToolContext};

/// Gates calls.
#[hookwire::hook]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

// An entry's chain hooks are `tool_hooks`, as the agent's are.
#[hookwire::agent(name = "calc", function_tools = [add_one(hooks = [gate])])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
