/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

// The same rule as a card's: the schema of a tool's input describes an
// object (model APIs take a tool's parameters as one).
#[hookwire::agent(
    name = "calc",
    function_tools = [add_one],
    tool_input_schema = r#"{"type": "string"}"#
)]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
