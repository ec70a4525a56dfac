//! Tools.

/// Adds one.
pub fn add_one(x: &i64) -> i64 {
    x + 1
}
