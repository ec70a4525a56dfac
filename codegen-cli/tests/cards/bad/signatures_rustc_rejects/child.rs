//! Takes a string where the generated code passes the call's error.

/// Explains.
pub fn explain(error: String) -> String {
    format!("the child failed: {error}")
}
