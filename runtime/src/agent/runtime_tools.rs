//! Tools registered on an agent at run time (source `runtime`).

use std::sync::Arc;

use crate::context::{ToolContext, ToolSource};
use crate::hook::Handler;
use crate::scope::CallScope;
use hookwire_chain::call::{Outcome, ToolArgs, ToolCall};
use hookwire_chain::tool::ToolDefinition;
use hookwire_chain::toolset::ToolSet;

use super::decl::{Agent, AgentConfig};

/// An agent with tools registered at run time: its static tools, then the
/// tools of `tools` (a [`Router`](crate::Router) or any [`ToolSet`]) that
/// no static tool hides. A registered tool carries source
/// [`ToolSource::Runtime`] (`source:runtime` in matchers, the trace and
/// [`ToolContext::source`] of the agent's hooks) and runs through the
/// agent's agent-level hooks in declared order, each matcher evaluated on
/// the call ([`Agent::call_dynamic`]), as an MCP tool does.
///
/// The agent opts in with `runtime_tools` (`#[agent(runtime_tools)]`, a
/// card's `runtime_tools: true`); without it its hooks never see these
/// tools. [`warnings`](Agent::warnings) lists the agent-level hooks that
/// select none of the tools it has now.
///
/// ```no_run
/// # fn demo<A: hookwire::agent::Agent>(agent: A) {
/// use hookwire::agent::WithTools;
/// use hookwire::{FnTool, Json, Router, call::NoArgs};
///
/// let tools = Router::new().tool(FnTool::new("ping", "Pings.", |_: NoArgs| async { Json("pong") }));
/// let agent = WithTools::new(agent, tools);
/// // hookwire::agent::Runner::new(agent, model).run("ping").await
/// # let _ = agent; }
/// ```
pub struct WithTools<A, T> {
    tools: RuntimeTools<A, T>,
    warnings: Vec<String>,
}

impl<A: Agent, T: ToolSet> WithTools<A, T> {
    /// `agent`, with `tools` registered on it.
    pub fn new(agent: A, tools: T) -> Self {
        let tools = RuntimeTools {
            agent: Arc::new(agent),
            tools,
        };
        let warnings = unmatched_hooks(
            &*tools.agent,
            &tools,
            "once its run-time tools were registered",
        );
        for text in &warnings {
            tracing::warn!(
                target: "hookwire::audit",
                agent = %tools.agent.config().name,
                warning = %text,
                "a hook selects none of the agent's tools"
            );
        }
        Self { tools, warnings }
    }

    /// The wrapped agent.
    pub fn agent(&self) -> &A {
        &self.tools.agent
    }
}

impl<A, T> std::fmt::Debug for WithTools<A, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WithTools")
    }
}

/// The tools of a [`WithTools`]: the agent's static tools, then the
/// registered ones (source `runtime`, behind the agent-level hooks).
pub struct RuntimeTools<A, T> {
    agent: Arc<A>,
    tools: T,
}

impl<A, T> std::fmt::Debug for RuntimeTools<A, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuntimeTools")
    }
}

impl<A: Agent, T: ToolSet> RuntimeTools<A, T> {
    /// Whether `name` is a registered tool no static tool hides.
    fn registered(&self, name: &str) -> bool {
        !self.agent.tools().contains(name) && self.tools.contains(name)
    }
}

impl<A: Agent, T: ToolSet> ToolSet for RuntimeTools<A, T> {
    fn definitions(&self) -> Vec<ToolDefinition> {
        let mut out = self.agent.tools().definitions();
        out.extend(
            self.tools
                .definitions()
                .into_iter()
                .filter(|d| !self.agent.tools().contains(&d.name)),
        );
        out
    }

    fn source(&self, name: &str) -> Option<ToolSource> {
        self.agent
            .tools()
            .source(name)
            .or_else(|| self.tools.contains(name).then_some(ToolSource::Runtime))
    }

    fn meta(&self, name: &str) -> crate::ToolMeta {
        if self.registered(name) {
            self.tools.meta(name)
        } else {
            self.agent.tools().meta(name)
        }
    }

    fn step_offer(
        &self,
        definitions: &[ToolDefinition],
        step: &crate::StepView<'_>,
    ) -> crate::StepOffer {
        let mut offer = self.agent.tools().step_offer(definitions, step);
        offer.merge(self.tools.step_offer(definitions, step));
        offer
    }

    fn tool_view(&self, name: &str) -> Option<crate::ToolView> {
        if self.registered(name) {
            self.tools.tool_view(name)
        } else {
            self.agent.tools().tool_view(name)
        }
    }

    async fn dispatch(&self, scope: &CallScope, call: ToolCall) -> Outcome {
        if !self.registered(&call.name) {
            return self.agent.tools().dispatch(scope, call).await;
        }
        let meta = self.tools.meta(&call.name);
        let mut cx = scope
            .context(call.name.clone(), ToolSource::Runtime, None, call.id)
            .with_meta(meta);
        let inner = Registered { tools: &self.tools };
        let outcome = self
            .agent
            .call_dynamic(&mut cx, call.arguments, &inner)
            .await;
        outcome.map_err(|e| e.with_tool(cx.tool()))
    }
}

/// The innermost handler of a registered tool's call: the registered set's
/// own dispatch, with the arguments the agent's hooks let through.
struct Registered<'t, T> {
    tools: &'t T,
}

impl<T: ToolSet> Handler for Registered<'_, T> {
    async fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> Outcome {
        let call = ToolCall::new(cx.tool_use_id(), cx.tool(), args);
        self.tools.dispatch(cx.scope(), call).await
    }

    fn tool_view(&self) -> Option<crate::ToolView> {
        None
    }
}

/// The agent-level hooks of `agent` that select none of `tools`, one
/// warning each (`when` says when the tools became known).
pub(crate) fn unmatched_hooks<A: Agent, T: ToolSet>(
    agent: &A,
    tools: &T,
    when: &str,
) -> Vec<String> {
    let known: Vec<(String, ToolSource, crate::ToolMeta)> = tools
        .definitions()
        .into_iter()
        .map(|d| {
            let source = tools.source(&d.name).unwrap_or(ToolSource::Runtime);
            let meta = tools.meta(&d.name);
            (d.name, source, meta)
        })
        .collect();
    let targets: Vec<hookwire_chain::matcher::MatchTarget<'_>> = known
        .iter()
        .map(|(n, s, m)| hookwire_chain::matcher::MatchTarget::new(n, *s).with_meta(m))
        .collect();
    agent
        .hooks_selecting_none(&targets)
        .into_iter()
        .map(|(hook, matcher)| {
            format!(
                "hook `{hook}` with match `{matcher}` selects none of the {} tools of agent `{}` known {when}: it runs on no call",
                known.len(),
                agent.config().name
            )
        })
        .collect()
}

impl<A: Agent, T: ToolSet + 'static> Agent for WithTools<A, T> {
    type Tools = RuntimeTools<A, T>;
    const DURABLE_NAME: super::DurableName = A::DURABLE_NAME;

    fn config(&self) -> &AgentConfig {
        self.tools.agent.config()
    }

    fn tools(&self) -> &Self::Tools {
        &self.tools
    }

    fn lifecycle_hooks(&self) -> impl crate::agent::lifecycle::LifecycleHooks {
        self.tools.agent.lifecycle_hooks()
    }

    fn call_dynamic<D: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        inner: &D,
    ) -> impl std::future::Future<Output = Outcome> + Send {
        self.tools.agent.call_dynamic(cx, args, inner)
    }

    fn hooks_selecting_none(
        &self,
        tools: &[hookwire_chain::matcher::MatchTarget<'_>],
    ) -> Vec<(&'static str, String)> {
        self.tools.agent.hooks_selecting_none(tools)
    }

    fn hooks_for_call(
        &self,
        target: &hookwire_chain::matcher::MatchTarget<'_>,
    ) -> Vec<&'static str> {
        self.tools.agent.hooks_for_call(target)
    }

    fn refused_tools(&self) -> Vec<crate::agent::RefusedTool> {
        self.tools.agent.refused_tools()
    }

    fn warnings(&self) -> Vec<String> {
        let mut out = self.tools.agent.warnings();
        out.extend(self.warnings.iter().cloned());
        out
    }

    fn hooks_for(&self, tool: &str, source: ToolSource) -> Vec<&'static str> {
        self.tools.agent.hooks_for(tool, source)
    }
}
