/// Greets someone.
#[hookwire::tool(name = "greet someone")]
fn greet(name: String) -> String {
    name
}

fn main() {}
