use hookwire::{Next, Outcome, ToolArgs, ToolContext};

#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next, extra: u32) -> Outcome {
    let _ = extra;
    next.run(cx, args).await
}

fn main() {}
