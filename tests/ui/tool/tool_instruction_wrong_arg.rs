/// Resets the counter.
#[hookwire::tool(instruction = hint)]
fn reset() -> String {
    "reset".to_owned()
}

/// Takes a count, not the step.
fn hint(times: u32) -> String {
    format!("reset at most {times} times")
}

fn main() {}
