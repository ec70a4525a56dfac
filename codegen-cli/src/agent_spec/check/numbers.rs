//! Numbers that must be positive: the time limits of hooks (the settings'
//! own, `max_parallel` and the like, are checked by their kind,
//! [`Settings`](crate::spec::Settings)).

use super::{HookPlace, SpecError, SpecField};
use crate::spec::{AgentSpec, check_positive};

impl AgentSpec {
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
