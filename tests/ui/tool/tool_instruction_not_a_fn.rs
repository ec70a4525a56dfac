/// Resets the counter.
#[hookwire::tool(instruction = HINT)]
fn reset() -> String {
    "reset".to_owned()
}

/// A constant text: write it as `instruction = "..."` instead.
const HINT: &str = "reset only when asked twice";

fn main() {}
