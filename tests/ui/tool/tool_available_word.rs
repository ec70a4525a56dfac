/// Resets the counter.
#[hookwire::tool(available)]
fn reset() -> String {
    "reset".to_owned()
}

fn main() {}
