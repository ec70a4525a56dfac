/// Resets the counter.
#[hookwire::tool(available = admin)]
fn reset() -> String {
    "reset".to_owned()
}

/// Says why, instead of whether.
fn admin(step: &hookwire::view::StepView<'_>) -> String {
    format!("step {}", step.step)
}

fn main() {}
