/// Adds a pair.
#[hookwire::tool]
fn add((a, b): (i64, i64)) -> String {
    (a + b).to_string()
}

#[hookwire::agent(name = "calc", function_tools = [add])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
