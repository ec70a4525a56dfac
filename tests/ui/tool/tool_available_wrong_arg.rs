/// Resets the counter.
#[hookwire::tool(available = admin)]
fn reset() -> String {
    "reset".to_owned()
}

/// Takes the user's name, not the step.
fn admin(user: &str) -> bool {
    user == "root"
}

fn main() {}
