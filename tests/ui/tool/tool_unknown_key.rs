/// Greets someone.
#[hookwire::tool(strcit)]
fn greet(name: String) -> String {
    name
}

fn main() {}
