use hookwire::agent::RunOutput;

/// The child.
#[hookwire::agent(name = "echo", instruction = "Echo.")]
pub struct Echo;

/// Takes the run by value: an extractor borrows it.
fn shout(out: RunOutput) -> String {
    out.text
}

/// The parent.
#[hookwire::agent(name = "desk", agents = [Echo(name = "echo", output = shout)])]
pub struct Desk;

fn main() {
    let _ = Desk::new();
}
