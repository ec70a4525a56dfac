//! The instruction takes a count, not the step.

/// Resets.
pub fn reset() -> String {
    "reset".to_owned()
}

/// A hint.
pub fn hint(times: u32) -> String {
    format!("reset at most {times} times")
}
