//! An agent with its MCP servers connected: what a run starts with.

use std::sync::Arc;

use super::client::{McpOptions, McpServers};
use super::config::{ConfigError, McpConfig};
use super::joined::Joined;
use super::toolset::{McpCall, McpToolSet};
use crate::agent::{Agent, AgentConfig, AgentHooked};
use crate::hook::Handler;
use crate::scope::CallScope;
use hookwire_chain::call::{Outcome, ToolCall};
use hookwire_chain::tool::ToolDefinition;
use hookwire_chain::toolset::ToolSet;

/// The static tools of a shared agent declaration, as a tool set.
pub struct StaticTools<A>(Arc<A>);

impl<A> StaticTools<A> {
    /// The static tools of `agent`.
    pub fn new(agent: Arc<A>) -> Self {
        Self(agent)
    }
}

impl<A> Clone for StaticTools<A> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<A> std::fmt::Debug for StaticTools<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StaticTools")
    }
}

impl<A: Agent> ToolSet for StaticTools<A> {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.0.tools().definitions()
    }

    fn shared_definitions(&self) -> std::sync::Arc<[ToolDefinition]> {
        self.0.tools().shared_definitions()
    }

    fn source(&self, name: &str) -> Option<crate::context::ToolSource> {
        self.0.tools().source(name)
    }

    fn meta(&self, name: &str) -> crate::ToolMeta {
        self.0.tools().meta(name)
    }

    fn step_offer(
        &self,
        definitions: &[ToolDefinition],
        step: &crate::StepView<'_>,
    ) -> crate::StepOffer {
        self.0.tools().step_offer(definitions, step)
    }

    fn tool_view(&self, name: &str) -> Option<crate::ToolView> {
        self.0.tools().tool_view(name)
    }

    async fn dispatch(&self, scope: &CallScope, call: ToolCall) -> Outcome {
        self.0.tools().dispatch(scope, call).await
    }
}

/// An agent declaration together with its connected MCP servers: its tools
/// are the declaration's static tools followed by the MCP tools of the
/// servers its `servers:` names, filtered by its `tools:` filters. It is an
/// [`Agent`] itself, so the agent loop runs it like any other agent.
///
/// ```no_run
/// # async fn demo<A: hookwire::agent::Agent>(agent: A) -> Result<(), Box<dyn std::error::Error>> {
/// use hookwire::mcp::{McpAgent, McpConfig};
///
/// let config = McpConfig::load("hookwire.yaml")?;
/// let agent = McpAgent::connect(agent, &config).await?;
/// // hookwire::agent::Runner::new(agent, model).run("What time is it in Tokyo?").await
/// # Ok(()) }
/// ```
pub struct McpAgent<A, C = McpCall> {
    agent: Arc<A>,
    servers: McpServers,
    tools: Joined<StaticTools<A>, McpToolSet<AgentHooked<A, C>>>,
    warnings: Vec<String>,
}

impl<A: Agent> McpAgent<A, McpCall> {
    /// Connects the servers `agent` names (in parallel). Every MCP call runs
    /// through the agent's own agent-level hooks
    /// ([`Agent::call_dynamic`]: declared order, matchers evaluated at
    /// run time), exactly as its static tools do.
    pub async fn connect(agent: A, config: &McpConfig) -> Result<Self, ConfigError> {
        Self::connect_with(agent, config, |call| call).await
    }
}

impl<A: Agent, C: Handler> McpAgent<A, C> {
    /// Connects the servers `agent` names (in parallel); every MCP call
    /// runs through the agent's agent-level hooks and then through the
    /// extra chain `build` makes around the [`McpCall`].
    ///
    /// Fails if `servers:` names a server `config` does not declare, or a
    /// `tools:` filter names a server not in `servers:` (errors name it). A
    /// server that fails to start is not an error: its tools give error
    /// results (see [`McpServers`]). MCP tools never take a static tool's
    /// name (the collision rule in [`names`](super::names)).
    pub async fn connect_with(
        agent: A,
        config: &McpConfig,
        build: impl FnOnce(McpCall) -> C,
    ) -> Result<Self, ConfigError> {
        let agent = Arc::new(agent);
        let declared = agent.config();
        let selected = config.select(declared.servers.iter().map(|s| &**s))?;
        let reserved: Vec<String> = agent
            .tools()
            .definitions()
            .into_iter()
            .map(|d| d.name)
            .collect();
        let options = McpOptions::new()
            .filters(declared.mcp_tools.iter().cloned())
            .reserve(reserved);
        let servers = McpServers::connect(&selected, options).await?;
        let hooked = agent.clone();
        let mut mcp_tools =
            servers.tool_set_with(move |call| AgentHooked::new(hooked, build(call)));
        for (server, rules) in &declared.server_rules {
            mcp_tools = mcp_tools.with_server_rules(server.clone(), *rules);
        }
        let tools = Joined::new(StaticTools(agent.clone()), mcp_tools);
        let warnings = crate::agent::runtime_tools::unmatched_hooks(
            &*agent,
            &tools,
            "when its MCP servers connected",
        );
        for text in &warnings {
            tracing::warn!(
                target: "hookwire::audit",
                agent = %agent.config().name,
                warning = %text,
                "a hook selects none of the agent's tools"
            );
        }
        Ok(Self {
            agent,
            servers,
            tools,
            warnings,
        })
    }

    /// The connections, for status and shutdown.
    pub fn servers(&self) -> &McpServers {
        &self.servers
    }

    /// The wrapped declaration.
    pub fn agent(&self) -> &A {
        &self.agent
    }
}

impl<A: Agent, C: Handler + 'static> Agent for McpAgent<A, C> {
    type Tools = Joined<StaticTools<A>, McpToolSet<AgentHooked<A, C>>>;
    const DURABLE_NAME: crate::agent::DurableName = A::DURABLE_NAME;

    fn config(&self) -> &AgentConfig {
        self.agent.config()
    }

    fn tools(&self) -> &Self::Tools {
        &self.tools
    }

    fn lifecycle_hooks(&self) -> impl crate::agent::lifecycle::LifecycleHooks {
        self.agent.lifecycle_hooks()
    }

    fn call_dynamic<D: Handler>(
        &self,
        cx: &mut crate::context::ToolContext,
        args: hookwire_chain::call::ToolArgs,
        inner: &D,
    ) -> impl std::future::Future<Output = Outcome> + Send {
        self.agent.call_dynamic(cx, args, inner)
    }
    fn hooks_selecting_none(
        &self,
        tools: &[hookwire_chain::matcher::MatchTarget<'_>],
    ) -> Vec<(&'static str, String)> {
        self.agent.hooks_selecting_none(tools)
    }

    fn hooks_for_call(
        &self,
        target: &hookwire_chain::matcher::MatchTarget<'_>,
    ) -> Vec<&'static str> {
        self.agent.hooks_for_call(target)
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The inner agent's, then every MCP tool that differs from its
    /// server's lock (see [`McpServers::refused`]), stopping the run when
    /// the lock's `on_change` is `stop`.
    fn refused_tools(&self) -> Vec<crate::agent::RefusedTool> {
        let mut out = self.agent.refused_tools();
        let stops = self.servers.on_change() == Some(hookwire_spec::OnChange::Stop);
        out.extend(self.servers.refused().into_iter().map(|drift| {
            crate::agent::RefusedTool::new(
                hookwire_spec::mcp_tool_name(&drift.server, &drift.tool),
                drift.to_string(),
                stops,
            )
        }));
        out
    }

    fn hooks_for(&self, tool: &str, source: crate::context::ToolSource) -> Vec<&'static str> {
        self.agent.hooks_for(tool, source)
    }
}
