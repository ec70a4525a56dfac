//! `hooks:` entries: their time limits, and where a `kind: tool_call`
//! entry may fire.

use super::{SpecError, SpecField};
use crate::spec::{AgentSpec, EventHookAction, HookEvent, RefreshCondition, check_positive};

impl AgentSpec {
    /// Each `hooks:` entry: a positive `timeout_sec`, and for a
    /// `kind: tool_call` entry a positive `ttl_minutes` and an event it
    /// can fire at.
    pub(super) fn check_event_hooks(&self, out: &mut Vec<SpecError>) {
        for (i, hook) in self.hooks.iter().enumerate() {
            let field = SpecField::EventHook(i);
            if let Some(Err(message)) = hook
                .timeout_sec
                .map(|t| check_positive("timeout_sec", i128::from(t)))
            {
                out.push(SpecError::new(field, message));
            }
            if let EventHookAction::ToolCall(call) = &hook.action {
                if let Some(RefreshCondition::Ttl { ttl_minutes }) = call.refresh_condition
                    && let Err(message) = check_positive("ttl_minutes", i128::from(ttl_minutes))
                {
                    out.push(SpecError::new(field, message));
                }
                if !HookEvent::TOOL_CALL_EVENTS.contains(&hook.event) {
                    out.push(SpecError::new(
                        field,
                        format!(
                            "`kind: tool_call` hooks cannot fire at `{}` (supported: on_request_start, on_completion)",
                            hook.event
                        ),
                    ));
                }
            }
        }
    }
}
