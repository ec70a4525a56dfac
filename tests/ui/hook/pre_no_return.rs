use hookwire::{ToolArgs, ToolContext};

#[hookwire::hook]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) {
    let _ = (cx, args);
}

fn main() {}
