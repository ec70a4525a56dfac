//! Dependencies.

/// What the agent is built from.
#[derive(Clone)]
struct AppDeps;
