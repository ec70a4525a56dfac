//! Tools.

/// Adds.
pub fn add(__hookwire: i64, b: i64) -> i64 {
    __hookwire + b
}
