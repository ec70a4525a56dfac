//! Tools.

/// Adds.
#[target_feature(enable = "avx2")]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}
