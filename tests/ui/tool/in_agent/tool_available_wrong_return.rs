/// Resets the counter.
#[hookwire::tool(available = admin)]
fn reset() -> String {
    "reset".to_owned()
}

/// Says why, instead of whether.
fn admin(step: &hookwire::view::StepView<'_>) -> String {
    format!("step {}", step.step)
}

#[hookwire::agent(name = "counter", function_tools = [reset])]
struct Counter;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Counter::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
