use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Echoes.
#[hookwire::tool]
fn echo(text: String) -> String {
    text
}

/// Runs a command.
#[hookwire::tool]
fn shell(command: String) -> String {
    command
}

/// Blocks the shell.
#[hookwire::hook]
async fn no_shell(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    next.run(cx, args).await
}

#[hookwire::agent(name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", function_tools = [echo])]
struct Ops;

fn main() {
    let _ = Ops::new();
}
