//! The agent IR: what `#[agent(...)]` and an AgentCard both lower to, and what
//! the [emitter](crate::emit) turns into Rust.
//!
//! The IR is plain data (strings, numbers, [`Matcher`]s) so that it lives in
//! the light part of the crate. Rust paths are kept as strings and parsed by
//! the emitter; with the `emit` feature each reference can also carry the
//! [`proc_macro2::Span`] of the token it came from, so that the `#[agent]`
//! macro's errors and type-level checks point at the user's code.
//!
//! ```
//! use hookwire_codegen::spec::{AgentSpec, HookRef, ToolRef};
//!
//! let spec = AgentSpec::new("PMO-orchestrator")
//!     .with_instruction("Get project updates.")
//!     .with_function_tool(ToolRef::new("crate::tools::AddOne", "add_one"))
//!     .with_tool_hook(HookRef::new("crate::hooks::Audit").with_match("*").unwrap());
//! assert_eq!(spec.function_tools[0].name, "add_one");
//! assert!(spec.tool_hooks[0].matcher.is_always());
//! ```

use crate::spec::{
    AgentRef, EventHookSpec, FnRef, LifecycleRef, McpToolsSpec, ServerRulesSpec, ToolRef,
};
use crate::spec::{HookRef, Settings, ToolSource};

/// A source location of a declaration, when the front end has one: the
/// `#[agent]` macro records token spans, cards record nothing here (their
/// diagnostics come from the card loader).
#[cfg(feature = "span")]
pub type SpanInfo = Option<proc_macro2::Span>;

/// A source location of a declaration (without the `emit` feature there is
/// nothing to record).
#[cfg(not(feature = "span"))]
pub type SpanInfo = Option<std::convert::Infallible>;

/// A reference's Rust path as the tokens the front end read, when it has
/// them (the `#[agent]` macro): the emitter uses them as they are instead
/// of parsing the text form again.
#[cfg(feature = "span")]
pub type PathTokens = Option<proc_macro2::TokenStream>;

/// A reference's Rust path as tokens (without the `span` feature there are
/// none).
#[cfg(not(feature = "span"))]
pub type PathTokens = Option<std::convert::Infallible>;

/// One agent declaration, as both front ends lower it.
#[derive(Debug, Clone, Default)]
pub struct AgentSpec {
    /// The agent's name (a card's `name`, defaulting to the file stem).
    pub name: String,
    /// The prefix of its Restate service names when served durably
    /// (`durable_name`; `None` derives one from `name`, see
    /// [`derived_durable_name`](crate::spec::derived_durable_name)).
    pub durable_name: Option<String>,
    /// The system instruction (a card's body or `instruction:`).
    pub instruction: String,
    /// What the agent does (shown when it is offered as a tool).
    pub description: Option<String>,
    /// Whether this is the default agent of its set.
    pub default: bool,
    /// MCP servers to connect to.
    pub servers: Vec<String>,
    /// What the agent says about all the tools of some of its servers
    /// (availability, instruction), in declared order.
    pub server_rules: Vec<ServerRulesSpec>,
    /// Whether tools may be registered on the agent at run time
    /// (`runtime_tools`, source `runtime`): its agent-level hooks then also
    /// run around those tools, matchers evaluated per call.
    pub runtime_tools: bool,
    /// MCP tool filters: `tools: {server: [glob, ...]}`, in declared order.
    pub mcp_tools: Vec<McpToolsSpec>,
    /// Statically known function tools, in declared order.
    pub function_tools: Vec<ToolRef>,
    /// Child agents exposed as tools (`agent__<Name>`), in declared order.
    pub agents: Vec<AgentRef>,
    /// Agent-level around-hooks, in declared order (outermost first).
    pub tool_hooks: Vec<HookRef>,
    /// Lifecycle and request-start hooks (`hooks:` in a card).
    pub hooks: Vec<EventHookSpec>,
    /// The keys that hold one plain value (`max_parallel`, `model`, ...):
    /// the rows of the settings table.
    pub settings: Settings,
    /// The input schema when called as a tool, as JSON text (default
    /// `{message: string}`).
    pub tool_input_schema: Option<String>,
    /// The Rust type of the agent's final answer (a card's `output_type:`,
    /// `#[agent(output = T)]`): a `Deserialize + JsonSchema` type the run
    /// asks the model for; its path, span and tokens.
    pub output_type: Option<FnRef>,
    /// The JSON Schema of the agent's final answer, as JSON text (a card's
    /// `output_schema:`), checked by
    /// [`check_output_schema`](crate::spec::check_output_schema).
    pub output_schema: Option<String>,
    /// Lifecycle hooks: Rust types implementing
    /// `hookwire::agent::lifecycle::LifecycleHooks`, in declared order.
    pub lifecycle_hooks: Vec<LifecycleRef>,
    /// The type the agent is built from (`#[agent(deps = T)]`, a card's
    /// `deps:`), as Rust source: every tool, hook and child agent is built
    /// from it with `FromDeps`. `None` means `()`, no dependencies.
    pub deps: Option<String>,
    /// The MCP lock (`hookwire.lock`) the agent's `servers` are pinned to,
    /// if there is one: the MCP tools of a server it lists are known when
    /// the agent is declared ([`AgentSpec::locked_mcp_tools`]), and its
    /// matchers are checked against them as against the function tools.
    pub mcp_lock: Option<std::sync::Arc<crate::spec::McpLock>>,
    /// The coverage rules its policy must hold (`coverage = [..]`, a card
    /// folder's `hookwire.yaml` `coverage:`), in declared order.
    pub coverage: Vec<crate::spec::CoverageSpec>,
    /// Where the declaration is (the struct name for `#[agent]`).
    pub span: SpanInfo,
}

impl AgentSpec {
    /// Whether the agent has tools known only at run time: MCP tools of
    /// its `servers`, or tools registered at run time (`runtime_tools`).
    pub fn has_run_time_tools(&self) -> bool {
        !self.servers.is_empty() || self.runtime_tools
    }

    /// A spec with only a name; every other field at its default.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Sets the instruction.
    pub fn with_instruction(mut self, instruction: impl Into<String>) -> Self {
        self.instruction = instruction.into();
        self
    }

    /// Adds a function tool.
    pub fn with_function_tool(mut self, tool: ToolRef) -> Self {
        self.function_tools.push(tool);
        self
    }

    /// Adds an agent-level hook (after the ones already declared, so it
    /// runs inside them).
    pub fn with_tool_hook(mut self, hook: HookRef) -> Self {
        self.tool_hooks.push(hook);
        self
    }

    /// Adds a child agent exposed as a tool.
    pub fn with_agent(mut self, agent: AgentRef) -> Self {
        self.agents.push(agent);
        self
    }

    /// The statically known tools in the order the model sees them:
    /// function tools, then agents as tools.
    pub fn static_tool_names(&self) -> Vec<String> {
        self.function_tools
            .iter()
            .map(|t| t.name.clone())
            .chain(self.agents.iter().map(AgentRef::tool_name))
            .collect()
    }

    /// The hooks that wrap the tool `name` from `source`, outermost first:
    /// agent-level hooks whose matcher selects the tool, then `tool_level`
    /// hooks whose matcher selects it. This is the one ordering rule, and the
    /// emitter and `cardgen explain` both use it.
    pub fn resolved_chain<'a>(
        &'a self,
        name: &str,
        source: ToolSource,
        tool_level: &'a [HookRef],
    ) -> Vec<&'a HookRef> {
        self.resolved_chain_ids(name, source, tool_level)
            .into_iter()
            .map(|id| match id {
                ChainHook::Agent(i) => &self.tool_hooks[i],
                ChainHook::Tool(i) => &tool_level[i],
            })
            .collect()
    }

    /// The metadata of the static tool `name` as far as the spec knows it
    /// (none for a tool whose metadata is read at compile time).
    pub fn static_meta(&self, name: &str) -> crate::spec::ToolMeta {
        let tool = self.function_tools.iter().find(|t| t.name == name);
        let child = self.agents.iter().find(|a| a.tool_name() == name);
        match (tool, child) {
            (Some(t), _) => t.meta.clone().unwrap_or_default(),
            (None, Some(a)) => a.meta.clone(),
            (None, None) => crate::spec::ToolMeta::EMPTY,
        }
    }

    /// Every hook a tool's chain may hold, outermost first: the
    /// agent-level ones, then the tool's own (`tool_level`), whatever
    /// their matchers.
    pub fn links(&self, tool_level: &[HookRef]) -> Vec<ChainHook> {
        (0..self.tool_hooks.len())
            .map(ChainHook::Agent)
            .chain((0..tool_level.len()).map(ChainHook::Tool))
            .collect()
    }

    /// [`AgentSpec::resolved_chain`] as positions: which agent-level hook
    /// (in `tool_hooks`) or tool-level hook (in `tool_level`) each link is.
    pub fn resolved_chain_ids(
        &self,
        name: &str,
        source: ToolSource,
        tool_level: &[HookRef],
    ) -> Vec<ChainHook> {
        let meta = self.static_meta(name);
        let target = crate::spec::MatchTarget::new(name, source).with_meta(&meta);
        let agent = self.tool_hooks.iter().enumerate();
        let agent = agent
            .filter(|(_, h)| h.matcher.matches(target))
            .map(|(i, _)| ChainHook::Agent(i));
        let tool = tool_level.iter().enumerate();
        let tool = tool
            .filter(|(_, h)| h.matcher.matches(target))
            .map(|(i, _)| ChainHook::Tool(i));
        agent.chain(tool).collect()
    }

    /// The tools known when the agent is declared, with their sources:
    /// the function tools and the child agents (`agent__<name>`).
    pub fn static_tools(&self) -> Vec<(String, ToolSource)> {
        self.function_tools
            .iter()
            .map(|t| (t.name.clone(), t.source))
            .chain(
                self.agents
                    .iter()
                    .map(|a| (a.tool_name(), ToolSource::Agent)),
            )
            .collect()
    }
}

/// One link of a tool's resolved chain, by position: an agent-level hook
/// (`tool_hooks[i]`) or a tool-level one (the tool's own list, `[i]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChainHook {
    /// `tool_hooks[i]`.
    Agent(usize),
    /// The tool-level hook `i`.
    Tool(usize),
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn resolved_chain_is_agent_hooks_then_tool_hooks_filtered_by_matcher() {
        let spec = AgentSpec::new("a")
            .with_tool_hook(HookRef::new("A"))
            .with_tool_hook(HookRef::new("OnlyRead").with_match("read_*").unwrap())
            .with_tool_hook(HookRef::new("McpOnly").with_match("source:mcp").unwrap());
        let tool_level = [HookRef::new("T")];
        let names = |tool: &str| {
            spec.resolved_chain(tool, ToolSource::Function, &tool_level)
                .iter()
                .map(|h| h.display_name().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(names("read_file"), ["A", "OnlyRead", "T"]);
        assert_eq!(names("write_file"), ["A", "T"]);
    }
}
