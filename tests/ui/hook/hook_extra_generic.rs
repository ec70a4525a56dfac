use hookwire::{Decision, ToolArgs, ToolContext};

#[hookwire::hook]
async fn gate<T: Default>(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = (cx, args, T::default());
    Decision::Continue
}

fn main() {}
