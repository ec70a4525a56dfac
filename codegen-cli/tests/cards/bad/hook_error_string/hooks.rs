//! Hooks.
use hookwire::{Decision, ToolArgs, ToolContext};

/// A result of this file.
pub type Checked<T> = Result<T, String>;

/// Checks.
pub async fn check(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Checked<Decision> {
    Ok(Decision::Continue)
}
