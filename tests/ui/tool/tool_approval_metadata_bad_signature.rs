/// Pays.
#[hookwire::tool(approval_metadata = shown)]
fn pay(to: String) -> String {
    to
}

/// Takes the payee, not the tool's arguments.
fn shown(to: &String) -> hookwire::serde_json::Value {
    hookwire::serde_json::json!({ "to": to })
}

fn main() {}
