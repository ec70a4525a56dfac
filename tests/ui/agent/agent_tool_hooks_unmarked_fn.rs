use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext};

/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// Audits, but is not marked `#[hookwire::hook]`.
async fn audit<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    next.run(cx, args).await
}

#[hookwire::agent(name = "calc", function_tools = [add_one], tool_hooks = [audit])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(Calc::new(), hookwire::model::ScriptedModel::from_turns([]));
}
