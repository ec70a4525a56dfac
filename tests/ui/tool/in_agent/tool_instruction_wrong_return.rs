/// Resets the counter.
#[hookwire::tool(instruction = hint)]
fn reset() -> String {
    "reset".to_owned()
}

/// Returns a borrowed text, not a `String`.
fn hint(_step: &hookwire::view::StepView<'_>) -> &'static str {
    "reset only when asked twice"
}

#[hookwire::agent(name = "counter", function_tools = [reset])]
struct Counter;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Counter::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
