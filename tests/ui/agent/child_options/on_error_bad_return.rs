use hookwire::ToolError;

/// The child.
#[hookwire::agent(name = "echo", instruction = "Echo.")]
pub struct Echo;

/// Returns nothing the model could read.
fn go_on(_error: ToolError) {}

/// The parent.
#[hookwire::agent(name = "desk", agents = [Echo(name = "echo", on_error = go_on)])]
pub struct Desk;

fn main() {
    let _ = Desk::new();
}
