use hookwire::{Outcome, ToolArgs, ToolContext};

#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: ToolArgs) -> Outcome {
    let _ = (cx, args);
    todo!()
}

fn main() {}
