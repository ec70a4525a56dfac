/// The child, declared as `ny`.
#[hookwire::agent(name = "ny", instruction = "Plan.")]
struct Ny;

/// Lists the child as `Ny` (its type's name), not `ny`.
#[hookwire::agent(name = "pmo", agents = [Ny])]
struct Pmo;

fn main() {}
