use hookwire::ToolError;

/// Returns nothing the model could read.
fn explain(error: ToolError) -> Option<bool> {
    Some(error.is_retryable())
}

/// Adds one.
#[hookwire::tool(on_error = explain)]
fn add_one(x: i64) -> Result<String, String> {
    Ok((x + 1).to_string())
}

#[hookwire::agent(name = "calc", function_tools = [add_one])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
