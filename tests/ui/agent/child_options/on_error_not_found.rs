/// The child.
#[hookwire::agent(name = "echo", instruction = "Echo.")]
pub struct Echo;

/// The parent: `go_on` does not exist.
#[hookwire::agent(name = "desk", agents = [Echo(name = "echo", on_error = go_on)])]
pub struct Desk;

fn main() {
    let _ = Desk::new();
}
