//! Tools.

/// Adds.
pub fn add(a: i64, #[cfg(feature = "wide")] b: i64) -> i64 {
    a
}
