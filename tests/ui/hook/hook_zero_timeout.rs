use hookwire::{Decision, ToolArgs, ToolContext};

#[hookwire::hook(timeout_ms = 0)]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

fn main() {}
