use hookwire::{Decision, ToolArgs, ToolContext};

#[hookwire::hook]
async fn gate(cx: &mut ToolContext, args: &ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

fn main() {}
