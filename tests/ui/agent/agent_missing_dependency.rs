use hookwire::Dep;

/// A database handle.
#[derive(Clone)]
pub struct Db;

/// What the agent provides: a clock, no database.
#[derive(Clone)]
pub struct AppDeps {
    pub clock: u64,
}

/// Looks a user up.
#[hookwire::tool]
fn lookup(db: Dep<Db>, id: u64) -> String {
    let _ = db;
    id.to_string()
}

#[hookwire::agent(name = "users", deps = AppDeps, function_tools = [lookup])]
struct Users;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Users::new(&AppDeps { clock: 0 }),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
