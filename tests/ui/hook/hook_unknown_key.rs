use hookwire::{Decision, ToolArgs, ToolContext};

#[hookwire::hook(mach = "read_*")]
async fn gate(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

fn main() {}
