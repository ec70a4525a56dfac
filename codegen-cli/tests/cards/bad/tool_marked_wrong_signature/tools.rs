//! Tools.

/// Adds.
#[hookwire::tool]
pub fn add(a: &str) -> String {
    a.to_owned()
}
