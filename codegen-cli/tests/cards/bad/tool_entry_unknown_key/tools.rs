/// Resets.
pub fn reset() -> String {
    "reset".to_owned()
}

/// Always.
pub fn admin(_step: &hookwire::view::StepView<'_>) -> bool {
    true
}
