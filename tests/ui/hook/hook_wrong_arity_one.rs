use hookwire::{Outcome, ToolContext};

#[hookwire::hook]
async fn audit(cx: &mut ToolContext) -> Outcome {
    let _ = cx;
    todo!()
}

fn main() {}
