//! Agent-level hooks around tools discovered at run time (MCP tools).
//!
//! For statically known tools the emitter resolves every hook's matcher
//! while generating code. A tool discovered at run time goes through the
//! same agent-level hooks in the same order, each behind a
//! [`When`](crate::When) that evaluates its matcher on the call.

use std::sync::Arc;

use crate::context::ToolContext;
use crate::hook::Handler;
use hookwire_chain::call::{Outcome, ToolArgs};

use super::decl::Agent;

/// A handler for a tool discovered at run time, wrapped in its agent's
/// agent-level hooks ([`Agent::call_dynamic`]).
pub struct AgentHooked<A, C> {
    agent: Arc<A>,
    inner: C,
}

impl<A, C> AgentHooked<A, C> {
    /// `inner`, behind the agent-level hooks of `agent`.
    pub fn new(agent: Arc<A>, inner: C) -> Self {
        Self { agent, inner }
    }
}

impl<A, C> std::fmt::Debug for AgentHooked<A, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AgentHooked")
    }
}

impl<A: Agent, C: Handler> Handler for AgentHooked<A, C> {
    fn call(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
    ) -> impl std::future::Future<Output = Outcome> + Send {
        self.agent.call_dynamic(cx, args, &self.inner)
    }

    fn tool_view(&self) -> Option<crate::ToolView> {
        self.inner.tool_view()
    }
}
