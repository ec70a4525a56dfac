/// Resets the counter.
#[hookwire::tool(instruction = 5)]
fn reset() -> String {
    "reset".to_owned()
}

fn main() {}
