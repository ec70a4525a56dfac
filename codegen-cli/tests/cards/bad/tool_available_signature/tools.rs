//! The rule returns the reason, not whether.

/// Resets.
pub fn reset() -> String {
    "reset".to_owned()
}

/// Why not.
pub fn admin(step: &hookwire::view::StepView<'_>) -> String {
    format!("step {}", step.step)
}
