//! Function tools for the PMO cards.

/// Adds one to `x`.
pub fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// The status of a project.
pub async fn project_status(project: String) -> String {
    format!("{project}: on track")
}
