/// Resets the counter.
#[hookwire::tool(available = true)]
fn reset() -> String {
    "reset".to_owned()
}

fn main() {}
