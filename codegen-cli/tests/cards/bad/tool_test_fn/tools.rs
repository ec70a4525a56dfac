//! Tools.

/// Adds.
#[test]
pub fn add() -> i64 {
    1
}
