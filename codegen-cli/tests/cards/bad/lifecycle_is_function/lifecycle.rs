//! Lifecycle hooks.

/// Not a type.
pub async fn audit() {}
