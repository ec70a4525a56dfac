/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

#[derive(Default)]
struct NotAHook;

#[hookwire::agent(name = "calc", function_tools = [add_one(tool_hooks = [NotAHook])])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
