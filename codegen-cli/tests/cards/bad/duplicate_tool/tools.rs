//! Tools.

/// Adds one to `x`.
pub fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}
