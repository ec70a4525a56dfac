/// Resets the counter.
#[hookwire::tool(available = admin)]
fn reset() -> String {
    "reset".to_owned()
}

/// Takes the user's name, not the step.
fn admin(user: &str) -> bool {
    user == "root"
}

#[hookwire::agent(name = "counter", function_tools = [reset])]
struct Counter;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Counter::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
