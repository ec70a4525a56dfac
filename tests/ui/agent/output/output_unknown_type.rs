#[hookwire::agent(name = "planner", output = Plann)]
struct Planner;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Planner::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
