use hookwire::{Decision, ToolArgs, ToolContext};

/// Gates calls; its first letter is the Cyrillic `а`.
#[hookwire::hook]
async fn аudit(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args);
    Decision::Continue
}

fn main() {}
