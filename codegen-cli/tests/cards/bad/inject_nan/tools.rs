//! Tools.

/// Adds.
pub fn add(a: i64, b: i64, note: Option<String>, tags: Vec<String>) -> i64 {
    let _ = (note, tags);
    a + b
}
