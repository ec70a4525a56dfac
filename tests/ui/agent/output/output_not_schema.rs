/// Deserializes, but has no JSON Schema.
#[derive(serde::Deserialize)]
struct Plain {
    _x: u32,
}

#[hookwire::agent(name = "planner", output = Plain)]
struct Planner;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Planner::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
