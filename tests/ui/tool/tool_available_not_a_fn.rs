/// Resets the counter.
#[hookwire::tool(available = ADMIN)]
fn reset() -> String {
    "reset".to_owned()
}

/// A constant, not a rule asked at each step.
const ADMIN: bool = true;

fn main() {}
