//! Function tools for the PMO cards.

/// Adds one to `x`.
pub fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// The status of a project.
pub async fn project_status(project: String) -> String {
    format!("{project}: on track")
}

/// Whether the time server's tools are offered (the PMO card's `servers`
/// entry, `available: tools.rs:clock_on`): unless someone said "no clock".
pub fn clock_on(step: &hookwire::view::StepView<'_>) -> bool {
    !step.history.iter().any(|m| m.text().contains("no clock"))
}
