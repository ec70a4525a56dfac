//! Numbers that must be positive: `max_parallel`, `child_timeout_sec`,
//! `max_display_instances`, and the time limits of hooks.

use super::{HookPlace, SpecError, SpecField};
use crate::spec::AgentSpec;

/// `value` as a positive whole number, or the message why not.
///
/// ```
/// use hookwire_codegen::spec::check_positive;
///
/// assert_eq!(check_positive("max_parallel", 4), Ok(4));
/// assert_eq!(
///     check_positive("max_parallel", 0).unwrap_err(),
///     "`max_parallel` must be greater than 0, found 0"
/// );
/// ```
pub fn check_positive(key: &str, value: i128) -> Result<u64, String> {
    match u64::try_from(value) {
        Ok(0) | Err(_) if value <= 0 => {
            Err(format!("`{key}` must be greater than 0, found {value}"))
        }
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{key}` is too large: {value}")),
    }
}

impl AgentSpec {
    /// The agent's own numbers that must be positive.
    pub(super) fn check_numbers(&self, out: &mut Vec<SpecError>) {
        for (field, value) in [
            (SpecField::MaxParallel, self.max_parallel),
            (SpecField::ChildTimeoutSec, self.child_timeout_sec),
            (SpecField::MaxDisplayInstances, self.max_display_instances),
        ] {
            if let Some(Err(message)) = value.map(|v| check_positive(field.key(), i128::from(v))) {
                out.push(SpecError::new(field, message));
            }
        }
    }

    /// The `timeout_ms` of every hook with a matcher: agent-level hooks,
    /// then each function tool's own.
    pub(super) fn check_hook_timeouts(&self, out: &mut Vec<SpecError>) {
        let hooks = self
            .tool_hooks
            .iter()
            .enumerate()
            .map(|(i, h)| (HookPlace::ToolHook(i), h))
            .chain(
                self.function_tools
                    .iter()
                    .enumerate()
                    .flat_map(|(t, tool)| {
                        tool.hooks
                            .iter()
                            .enumerate()
                            .map(move |(i, h)| (HookPlace::ToolEntry { tool: t, hook: i }, h))
                    }),
            );
        for (place, hook) in hooks {
            if let Some(Err(message)) = hook
                .timeout_ms
                .map(|t| check_positive("timeout_ms", i128::from(t)))
            {
                out.push(SpecError::new(SpecField::Hook(place), message));
            }
        }
    }
}
