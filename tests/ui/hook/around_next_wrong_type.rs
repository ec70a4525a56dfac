use hookwire::{Outcome, ToolArgs, ToolContext};

#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Box<dyn Fn()>) -> Outcome {
    let _ = (cx, args, next);
    todo!()
}

fn main() {}
