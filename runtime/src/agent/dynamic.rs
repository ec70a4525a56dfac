//! Agent-level hooks around tools discovered at run time (MCP tools).
//!
//! For statically known tools the emitter resolves every hook's matcher
//! while generating code. A tool discovered at run time goes through the
//! same agent-level hooks in the same order, each behind a [`Matched`] that
//! evaluates its matcher on the call.

use std::sync::{Arc, LazyLock};

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::hook::{Handler, Hook, Next};
use crate::matcher::{MatchTarget, Matcher};

use super::decl::AgentDecl;

/// A hook that applies only to the tools its matcher selects, evaluated at
/// run time; other calls go straight to `next`. The matcher lives in a
/// `static` (generated code declares one per hook), so it is compiled once.
/// A matcher that failed to parse (`None`) selects nothing; the front ends
/// reject such matchers before any code is generated.
pub struct Matched<H: 'static> {
    matcher: &'static LazyLock<Option<Matcher>>,
    hook: H,
}

impl<H> Matched<H> {
    /// `hook`, for the tools `matcher` selects.
    pub const fn new(matcher: &'static LazyLock<Option<Matcher>>, hook: H) -> Self {
        Self { matcher, hook }
    }
}

impl<H> std::fmt::Debug for Matched<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Matched")
            .field("matcher", &self.matcher.as_ref().map(|m| m.to_string()))
            .finish_non_exhaustive()
    }
}

impl<H: Hook> Hook for Matched<H> {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let selected = LazyLock::force(self.matcher)
            .as_ref()
            .is_some_and(|m| m.matches(MatchTarget::new(cx.tool(), cx.source())));
        if selected {
            self.hook.around(cx, args, next).await
        } else {
            next.run(cx, args).await
        }
    }

    fn name(&self) -> &'static str {
        self.hook.name()
    }
}

/// A handler for a tool discovered at run time, wrapped in its agent's
/// agent-level hooks ([`AgentDecl::call_dynamic`]).
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

impl<A: AgentDecl, C: Handler> Handler for AgentHooked<A, C> {
    fn call(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
    ) -> impl std::future::Future<Output = Outcome> + Send {
        self.agent.call_dynamic(cx, args, &self.inner)
    }
}
