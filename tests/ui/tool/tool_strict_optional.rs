/// Greets someone.
#[hookwire::tool(strict)]
fn greet(name: String, title: Option<String>) -> String {
    format!("{} {name}", title.unwrap_or_default())
}

fn main() {}
