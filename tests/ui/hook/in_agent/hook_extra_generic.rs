use hookwire::{Decision, ToolArgs, ToolContext};

#[hookwire::hook]
async fn gate<T: Default>(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args, T::default());
    Decision::Continue
}

/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

#[hookwire::agent(name = "calc", function_tools = [add_one], tool_hooks = [gate])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
