#[hookwire::agent(
    name = "scorer",
    output_schema = r#"{"type": "object", "properties": {"score": {"type": "int"}}}"#
)]
struct Scorer;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Scorer::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
