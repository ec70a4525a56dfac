//! Tools: `b` has a default, so the injection need not give it; `tags`
//! has none.

/// Adds.
#[hookwire::tool]
pub fn add(a: i64, #[default(2)] b: i64, tags: Vec<String>) -> i64 {
    let _ = tags;
    a + b
}
