/// Greets someone.
#[hookwire::tool(strict)]
fn greet(name: String, title: Option<String>) -> String {
    format!("{} {name}", title.unwrap_or_default())
}

#[hookwire::agent(name = "calc", function_tools = [greet])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
