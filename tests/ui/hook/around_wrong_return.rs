use hookwire::{Next, ToolArgs, ToolContext};

#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> String {
    let _ = next.run(cx, args).await;
    String::new()
}

fn main() {}
