//! Tools.

/// Adds.
pub fn add(a: i64, b: i64) {
    let _ = a + b;
}
