use hookwire::{Next, Outcome, ToolArgs, ToolContext};

#[hookwire::hook]
async fn audit(cx: &ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let _ = cx;
    let _ = (args, next);
    todo!()
}

fn main() {}
