//! Tools the agent's sources refuse (an MCP tool that differs from its
//! lock): recorded once per run, before the model request that would have
//! offered them, and the run stopped when one says so.

use std::sync::Arc;

use super::{RunError, Runner, TraceEvent};
use crate::agent::Agent;
use crate::agent::lifecycle::LifecycleHooks;
use hookwire_chain::tool::ToolDefinition;
use hookwire_chain::toolset::ToolSet;

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Records the refusals this run has not recorded yet; `Err` when one
    /// of them stops the run. When a new one was recorded, `definitions`
    /// is read again, so that the request offers what the sources offer
    /// now (a tool refused after `tools/list_changed` is gone from it).
    pub(super) fn check_refused(
        &mut self,
        definitions: &mut Arc<[ToolDefinition]>,
    ) -> Result<(), RunError> {
        let refused = self.agent.refused_tools();
        if refused.is_empty() {
            return Ok(());
        }
        let mut new = false;
        for r in &refused {
            let seen = self.conv.trace.iter().any(|e| {
                matches!(e, TraceEvent::ToolRefused { tool, reason } if *tool == r.tool && *reason == r.reason)
            });
            if seen {
                continue;
            }
            new = true;
            tracing::warn!(
                target: "hookwire::audit",
                agent = %self.scope.agent(),
                tool = %r.tool,
                reason = %r.reason,
                "a tool was refused"
            );
            self.record(TraceEvent::ToolRefused {
                tool: r.tool.clone(),
                reason: r.reason.clone(),
            });
        }
        let stopping: Vec<_> = refused.into_iter().filter(|r| r.stops).collect();
        if !stopping.is_empty() {
            return Err(RunError::ToolsRefused(stopping));
        }
        if new {
            *definitions = self.agent.tools().shared_definitions();
        }
        Ok(())
    }
}
