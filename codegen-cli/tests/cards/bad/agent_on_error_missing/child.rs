//! The mapping is `go_on`; the card says `go_one`.

use hookwire::ToolError;

/// Goes on.
pub fn go_on(error: ToolError) -> String {
    error.to_string()
}
