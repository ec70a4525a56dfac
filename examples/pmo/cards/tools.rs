//! The PMO example's function tools. AgentCards reference them as
//! `tools.rs:add_one` and `tools.rs:shell`; the `#[agent]` form of the
//! example wraps the same functions with `#[hookwire::tool]`.

/// Adds one to `x`.
pub fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// Runs a shell command. The audit hook blocks every call, so this body
/// never runs in the example.
pub fn shell(command: String) -> Result<String, String> {
    Err(format!(
        "refusing to run `{command}` outside the audit hook"
    ))
}
