//! Defaults rustc would refuse in the generated code.

/// Greets.
pub fn greet(name: String, #[default("hello")] greeting: String) -> String {
    format!("{greeting}, {name}")
}

/// Repeats.
pub fn repeat(text: String, #[default(300)] times: u8) -> String {
    text.repeat(times.into())
}
