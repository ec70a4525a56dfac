//! Dependencies that are not `Clone`.

/// What the agent is built from.
pub struct AppDeps {
    /// The user.
    pub user: String,
}
