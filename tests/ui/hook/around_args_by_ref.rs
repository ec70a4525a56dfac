use hookwire::{Next, Outcome, ToolArgs, ToolContext};

#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: &mut ToolArgs, next: Next) -> Outcome {
    let _ = (cx, args, next);
    todo!()
}

fn main() {}
