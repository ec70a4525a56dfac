use hookwire::{ToolArgs, ToolContext};

#[hookwire::hook]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> bool {
    let _ = (cx, args);
    true
}

fn main() {}
