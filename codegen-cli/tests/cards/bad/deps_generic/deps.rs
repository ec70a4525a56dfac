//! Dependencies.

/// What the agent is built from.
#[derive(Clone)]
pub struct AppDeps<Db> {
    /// The database.
    pub db: Db,
}
