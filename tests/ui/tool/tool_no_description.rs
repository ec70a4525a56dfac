#[hookwire::tool]
fn greet(name: String) -> String {
    name
}

fn main() {}
