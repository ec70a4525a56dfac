/// Echoes.
#[hookwire::tool]
fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

#[hookwire::agent(name = "calc", function_tools = [echo])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
