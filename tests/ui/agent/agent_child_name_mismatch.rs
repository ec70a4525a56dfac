/// The child, declared as `ny`.
#[hookwire::agent(name = "ny", instruction = "Plan.")]
struct Ny;

/// Lists the child as `Ny` (its type's name), not `ny`.
#[hookwire::agent(name = "pmo", agents = [Ny])]
struct Pmo;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Pmo::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
