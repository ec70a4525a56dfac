struct S;

impl S {
    /// Greets.
    #[hookwire::tool]
    fn greet(&self, name: String) -> String {
        name
    }
}

#[hookwire::agent(name = "calc", function_tools = [greet])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
