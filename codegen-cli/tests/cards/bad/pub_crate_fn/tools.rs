//! Tools.

/// Adds one to `x`.
pub(crate) fn add_one(x: i64) -> i64 {
    x + 1
}
