/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

#[hookwire::agent(name = "calc", model = "antropic:claude-sonnet-4-5", function_tools = [add_one])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
