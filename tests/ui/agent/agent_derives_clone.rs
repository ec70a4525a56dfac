#[hookwire::agent(name = "calc")]
#[derive(Debug, Clone)]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
