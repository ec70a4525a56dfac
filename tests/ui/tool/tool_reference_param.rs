/// Greets someone.
#[hookwire::tool]
fn greet(name: &str) -> String {
    name.to_owned()
}

fn main() {}
