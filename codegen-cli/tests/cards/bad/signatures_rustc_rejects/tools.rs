//! A rule the generated code cannot call without `unsafe`.

/// Resets.
pub fn reset() -> String {
    "reset".to_owned()
}

/// Whether the step may reset.
pub unsafe fn admin(step: &hookwire::view::StepView<'_>) -> bool {
    step.step > 1
}
