use hookwire::{Decision, ToolArgs, ToolContext};

/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// Gates calls.
#[hookwire::hook]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

struct NotAHook;

#[hookwire::agent(name = "calc", function_tools = [add_one], tool_hooks = [gate, NotAHook])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
