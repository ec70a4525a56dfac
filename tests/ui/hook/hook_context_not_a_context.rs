use hookwire::{Decision, ToolArgs};

#[hookwire::hook]
async fn gate(cx: &mut String, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

fn main() {}
