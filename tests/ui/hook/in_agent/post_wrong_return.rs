use hookwire::{Outcome, ToolContext};

#[hookwire::hook]
async fn redact(cx: &mut ToolContext, outcome: &mut Outcome) -> Outcome {
    let _ = cx;
    outcome.clone()
}

/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

#[hookwire::agent(name = "calc", function_tools = [add_one], tool_hooks = [redact])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
