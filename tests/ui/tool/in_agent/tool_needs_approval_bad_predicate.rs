/// Deletes a file.
#[hookwire::tool(needs_approval = outside_tmp)]
fn delete(path: String) -> String {
    path
}

/// Takes the path, not the tool's arguments.
fn outside_tmp(path: &String) -> bool {
    !path.starts_with("/tmp/")
}

#[hookwire::agent(name = "calc", function_tools = [delete])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
