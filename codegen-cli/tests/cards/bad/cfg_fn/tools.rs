//! Tools.

/// Adds one to `x`.
#[cfg(feature = "extra")]
pub fn add_one(x: i64) -> i64 {
    x + 1
}
