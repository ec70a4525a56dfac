//! Tools.

/// Searches.
pub fn search(query: String, #[default(10)] num_results: u32) -> String {
    format!("{query} {num_results}")
}
