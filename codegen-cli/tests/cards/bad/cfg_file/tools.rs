//! Tools.
#![cfg(unix)]

/// Adds one to `x`.
pub fn add_one(x: i64) -> i64 {
    x + 1
}
