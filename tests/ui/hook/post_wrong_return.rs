use hookwire::{Outcome, ToolContext};

#[hookwire::hook]
async fn redact(cx: &mut ToolContext, outcome: &mut Outcome) -> Outcome {
    let _ = cx;
    outcome.clone()
}

fn main() {}
