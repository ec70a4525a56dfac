/// Resets the counter.
#[hookwire::tool(instruction = HINT)]
fn reset() -> String {
    "reset".to_owned()
}

/// A constant text: write it as `instruction = "..."` instead.
const HINT: &str = "reset only when asked twice";

#[hookwire::agent(name = "counter", function_tools = [reset])]
struct Counter;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Counter::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
