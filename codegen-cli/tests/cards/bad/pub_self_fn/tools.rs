//! Tools.

/// Adds one to `x`.
pub(self) fn add_one(x: i64) -> i64 {
    x + 1
}
