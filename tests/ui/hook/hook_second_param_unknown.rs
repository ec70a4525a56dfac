use hookwire::{Decision, ToolContext};

#[hookwire::hook]
async fn gate(cx: &mut ToolContext, text: &mut String) -> Decision {
    let _ = (cx, text);
    Decision::Continue
}

fn main() {}
