use hookwire::ToolContext;

/// Names the tool.
#[hookwire::tool]
fn who(cx: &mut ToolContext) -> String {
    cx.tool().to_owned()
}

#[hookwire::agent(name = "calc", function_tools = [who])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
