//! Function tools for the PMO cards.

/// Adds one to `x`.
pub fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// The status of a project.
pub async fn project_status(project: String) -> String {
    format!("{project}: on track")
}

/// Marks a session whose clock is off: the PMO card's `time` server is
/// not offered then (its `available: tools.rs:clock_on`).
pub struct ClockOff;

/// Whether the time server's tools are offered: unless the session says
/// the clock is off.
pub fn clock_on(step: &hookwire::StepView<'_>) -> bool {
    step.session::<ClockOff>().is_none()
}
