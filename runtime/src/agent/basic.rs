//! An agent from parts, for agents assembled at run time (and tests).

use super::decl::{Agent, AgentConfig};
use super::lifecycle::LifecycleHooks;
use hookwire_chain::toolset::ToolSet;

/// An agent made of a configuration, any [`ToolSet`] (a [`Router`](crate::Router),
/// an MCP tool set, a generated one) and lifecycle hooks: the
/// [`Agent`] to use when the agent is assembled at run time instead of
/// declared with `#[agent]` or a card.
///
/// ```
/// use hookwire::agent::{AgentConfig, BasicAgent, Runner};
/// use hookwire::model::PassthroughModel;
/// use hookwire::Router;
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// # rt.block_on(async {
/// let agent = BasicAgent::new(AgentConfig::new("echo"), Router::new());
/// let out = Runner::new(agent, PassthroughModel).run("hi").await.unwrap();
/// assert_eq!(out.text, "hi");
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct BasicAgent<T, H = ()> {
    config: AgentConfig,
    tools: T,
    hooks: H,
}

impl<T: ToolSet + 'static> BasicAgent<T, ()> {
    /// An agent with this configuration and these tools, and no lifecycle hooks.
    pub fn new(config: AgentConfig, tools: T) -> Self {
        Self {
            config,
            tools,
            hooks: (),
        }
    }
}

impl<T, H> BasicAgent<T, H> {
    /// Sets the lifecycle hooks (a tuple for several, in declared order).
    pub fn with_hooks<H2: LifecycleHooks + 'static>(self, hooks: H2) -> BasicAgent<T, H2> {
        BasicAgent {
            config: self.config,
            tools: self.tools,
            hooks,
        }
    }

    /// The configuration, mutably.
    pub fn config_mut(&mut self) -> &mut AgentConfig {
        &mut self.config
    }
}

impl<T: ToolSet + 'static, H: LifecycleHooks + 'static> Agent for BasicAgent<T, H> {
    type Tools = T;

    fn config(&self) -> &AgentConfig {
        &self.config
    }

    fn tools(&self) -> &T {
        &self.tools
    }

    fn lifecycle_hooks(&self) -> impl LifecycleHooks {
        &self.hooks
    }
}
