use hookwire::ToolContext;

struct Outcom;

// A post hook with a typo in `Outcome` reads as a typed pre hook over
// `Outcom`: the error says what a post hook takes.
#[hookwire::hook]
async fn redact(cx: &mut ToolContext, outcome: &mut Outcom) {
    let _ = (cx, outcome);
}

fn main() {}
