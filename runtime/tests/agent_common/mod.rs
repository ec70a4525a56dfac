//! Shared helpers for the agent tests.
#![allow(dead_code)]

use hookwire::ToolSet;
use hookwire::agent::lifecycle::LifecycleHooks;
use hookwire::agent::{AgentConfig, AgentDecl};

/// A hand-built agent: a config, a tool set and lifecycle hooks.
pub struct TestAgent<T, H = ()> {
    pub config: AgentConfig,
    pub tools: T,
    pub hooks: H,
}

impl<T> TestAgent<T, ()> {
    pub fn new(name: &'static str, tools: T) -> Self {
        Self {
            config: AgentConfig::new(name).with_instruction("You are a test agent."),
            tools,
            hooks: (),
        }
    }
}

impl<T, H> TestAgent<T, H> {
    pub fn with_hooks<H2>(self, hooks: H2) -> TestAgent<T, H2> {
        TestAgent {
            config: self.config,
            tools: self.tools,
            hooks,
        }
    }

    pub fn config_mut(&mut self) -> &mut AgentConfig {
        &mut self.config
    }
}

impl<T: ToolSet + 'static, H: LifecycleHooks + 'static> AgentDecl for TestAgent<T, H> {
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
