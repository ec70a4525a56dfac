use hookwire::ToolContext;

/// Names the tool.
#[hookwire::tool]
fn who(cx: &mut ToolContext) -> String {
    cx.tool().to_owned()
}

fn main() {}
