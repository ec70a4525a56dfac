//! A strict tool with a default, which the macro refuses.

/// Greets.
#[hookwire::tool(strict = true)]
pub fn greet(name: String, #[default(String::from("hello"))] greeting: String) -> String {
    format!("{greeting}, {name}")
}
