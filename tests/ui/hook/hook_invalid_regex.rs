use hookwire::{Decision, ToolArgs, ToolContext};

#[hookwire::hook(match = "/read_(file/")]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

fn main() {}
