//! Tools.

/// Adds one.
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}
