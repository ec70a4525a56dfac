/// Deletes a file.
#[hookwire::tool(needs_approval = "always")]
fn delete(path: String) -> String {
    path
}

#[hookwire::agent(name = "calc", function_tools = [delete])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
