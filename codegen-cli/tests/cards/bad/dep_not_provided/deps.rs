//! The agent's dependencies, without a way to take a `Db` out of them.

/// What the agent is built from.
#[derive(Clone)]
pub struct AppDeps {
    /// The database.
    pub db: Db,
}

/// A database handle.
#[derive(Clone)]
pub struct Db;

/// A cache, which `AppDeps` provides.
#[derive(Clone)]
pub struct Cache;

impl hookwire::deps::FromRef<AppDeps> for Cache {
    fn from_ref(_: &AppDeps) -> Self {
        Cache
    }
}
