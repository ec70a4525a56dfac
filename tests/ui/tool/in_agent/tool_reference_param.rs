/// Greets someone.
#[hookwire::tool]
fn greet(name: &str) -> String {
    name.to_owned()
}

#[hookwire::agent(name = "calc", function_tools = [greet])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
