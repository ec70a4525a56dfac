use hookwire::{Next, Outcome, ToolArgs, ToolContext};

#[hookwire::hook]
fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let _ = (cx, args, next);
    todo!()
}

fn main() {}
