/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> Vec<i64> {
    vec![x + 1]
}

#[hookwire::agent(name = "calc", function_tools = [add_one])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
