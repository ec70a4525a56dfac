//! Tools.

/// Adds.
pub fn add(a: i64, b: i64) -> impl std::fmt::Display {
    a + b
}
