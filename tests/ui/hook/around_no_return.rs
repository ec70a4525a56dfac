use hookwire::{Next, ToolArgs, ToolContext};

#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) {
    let _ = next.run(cx, args).await;
}

fn main() {}
