use std::borrow::Cow;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use hookwire_chain::toolset::ToolSet;

pub use hookwire_spec::{HistoryMergeTarget, HistorySource};

/// An MCP tool filter: the tools of `server` whose names match one of
/// `globs` (an empty list means every tool).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpFilter {
    /// The server's name in the server configuration.
    pub server: Cow<'static, str>,
    /// Globs over the server's tool names (`get_*`).
    pub globs: Vec<Cow<'static, str>>,
}

/// A setting's type in [`AgentConfig`], by its kind (`hookwire_spec::kind`).
macro_rules! config_type {
    (Count) => { Option<usize> };
    (Seconds) => { Option<Duration> };
    (Text) => { Option<Cow<'static, str>> };
    (Bool) => { bool };
    (Choice<$t:ty>) => { $t };
}

/// A setting's value when it is not written: the row's `= default`, else
/// `Default` (`None`, `false`, the vocabulary's default).
macro_rules! config_default {
    () => {
        Default::default()
    };
    ($default:expr) => {
        $default
    };
}

/// A setting's builder, by its kind: `with_x(value)` sets the field.
macro_rules! config_builder {
    (Count, $field:ident, $builder:ident, $doc:literal) => {
        #[doc = $doc]
        pub fn $builder(mut self, $field: usize) -> Self {
            self.$field = Some($field);
            self
        }
    };
    (Seconds, $field:ident, $builder:ident, $doc:literal) => {
        #[doc = $doc]
        pub fn $builder(mut self, $field: Duration) -> Self {
            self.$field = Some($field);
            self
        }
    };
    (Text, $field:ident, $builder:ident, $doc:literal) => {
        #[doc = $doc]
        pub fn $builder(mut self, $field: impl Into<Cow<'static, str>>) -> Self {
            self.$field = Some($field.into());
            self
        }
    };
    (Bool, $field:ident, $builder:ident, $doc:literal) => {
        #[doc = $doc]
        pub fn $builder(mut self, $field: bool) -> Self {
            self.$field = $field;
            self
        }
    };
    (Choice<$t:ty>, $field:ident, $builder:ident, $doc:literal) => {
        #[doc = $doc]
        pub fn $builder(mut self, $field: $t) -> Self {
            self.$field = $field;
            self
        }
    };
}

/// Declares [`AgentConfig`] with a field and a builder per row of the
/// settings table (`hookwire_spec::for_each_setting!`: `max_parallel`,
/// `model`, ...), between the agent's children and its input schema.
macro_rules! agent_config {
    ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
        $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
        /// Everything an agent declaration says besides its statically known tools:
        /// the same fields as an AgentCard.
        ///
        /// Built with [`AgentConfig::new`] and the `with_*` setters (generated code
        /// does exactly that), so new fields can be added without breaking it.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[non_exhaustive]
        pub struct AgentConfig {
            /// The agent's name.
            pub name: Cow<'static, str>,
            /// The system instruction.
            pub instruction: Cow<'static, str>,
            /// What the agent does (shown when it is offered as a tool).
            pub description: Option<Cow<'static, str>>,
            /// Whether this is the default agent of its set.
            pub default: bool,
            /// MCP servers to connect to, by name in the server configuration.
            pub servers: Vec<Cow<'static, str>>,
            /// MCP tool filters.
            pub mcp_tools: Vec<McpFilter>,
            /// Names of child agents exposed as tools (`agent__<Name>`).
            pub agents: Vec<Cow<'static, str>>,
            $(
                #[doc = $doc]
                pub $field: config_type!($kind $(<$param>)?),
            )*
            /// The input schema when called as a tool (default `{message: string}`).
            pub tool_input_schema: Option<Value>,
            /// Config-driven hooks: tool calls injected at request start or after
            /// completion (see [`RequestHook`](crate::agent::RequestHook)).
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub request_hooks: Vec<crate::agent::RequestHook>,
            /// What the agent says about the tools of each of its MCP servers as
            /// a whole (a card's `servers:` entry with `available` /
            /// `instruction`): not offered in the steps the rule says no to, and
            /// the instruction in the system prompt of the steps that offer them.
            /// Functions, so not part of a serialized configuration.
            #[serde(skip)]
            pub server_rules: Vec<(Cow<'static, str>, crate::StepRules)>,
            /// The schema the agent's final answer follows (a card's
            /// `output_type:` / `output_schema:`, `#[agent(output = T)]`): every
            /// run asks the model for it and checks the answer
            /// ([`RunOutput::structured`](crate::agent::RunOutput::structured)).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub output: Option<crate::model::OutputSpec>,
        }

        impl AgentConfig {
            /// A configuration with only a name; everything else at its default.
            pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
                Self {
                    name: name.into(),
                    instruction: Cow::Borrowed(""),
                    description: None,
                    default: false,
                    servers: Vec::new(),
                    mcp_tools: Vec::new(),
                    agents: Vec::new(),
                    $($field: config_default!($($default)?),)*
                    tool_input_schema: None,
                    request_hooks: Vec::new(),
                    server_rules: Vec::new(),
                    output: None,
                }
            }

            $(config_builder!($kind $(<$param>)?, $field, $builder, $builder_doc);)*
        }
    };
}

hookwire_spec::for_each_setting!(agent_config);

impl AgentConfig {
    /// The model this agent runs on: `HOOKWIRE_MODEL` if set, else the
    /// configured [`model`](Self::model), else `passthrough`; the string is
    /// read by [`model::from_spec`](crate::model::from_spec), with relative
    /// script paths resolved against `base`.
    pub fn load_model(
        &self,
        base: Option<&std::path::Path>,
    ) -> Result<std::sync::Arc<dyn crate::model::Model>, crate::model::ModelError> {
        let spec = std::env::var("HOOKWIRE_MODEL")
            .ok()
            .filter(|s| !s.is_empty())
            .or_else(|| self.model.as_deref().map(str::to_owned))
            .unwrap_or_else(|| "passthrough".to_owned());
        crate::model::from_spec(&spec, base)
    }

    /// Sets the output schema to `T`'s ([`AgentConfig::output`]).
    pub fn with_output_type<T: schemars::JsonSchema>(mut self) -> Self {
        self.output = Some(crate::model::OutputSpec::for_type::<T>());
        self
    }

    /// Sets the output spec ([`AgentConfig::output`]).
    pub fn with_output(mut self, spec: crate::model::OutputSpec) -> Self {
        self.output = Some(spec);
        self
    }

    /// Sets the output schema to a JSON Schema named `name`
    /// ([`AgentConfig::output`]); answers are checked against it (feature
    /// `output-schema`).
    #[cfg(feature = "output-schema")]
    #[cfg_attr(docsrs, doc(cfg(feature = "output-schema")))]
    pub fn with_output_schema(mut self, name: &str, schema: Value) -> Self {
        self.output = Some(crate::model::OutputSpec::new(name, schema));
        self
    }

    /// Sets what the agent says about the tools of its MCP server `server`
    /// as a whole ([`AgentConfig::server_rules`]).
    pub fn with_server_rules(
        mut self,
        server: impl Into<Cow<'static, str>>,
        rules: crate::StepRules,
    ) -> Self {
        self.server_rules.push((server.into(), rules));
        self
    }

    /// Adds a config-driven hook (`on_request_start` / `on_completion`).
    pub fn with_request_hook(mut self, hook: crate::agent::RequestHook) -> Self {
        self.request_hooks.push(hook);
        self
    }

    /// Sets the instruction.
    pub fn with_instruction(mut self, instruction: impl Into<Cow<'static, str>>) -> Self {
        self.instruction = instruction.into();
        self
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Marks the agent as the default one.
    pub fn with_default(mut self, default: bool) -> Self {
        self.default = default;
        self
    }

    /// Adds an MCP server.
    pub fn with_server(mut self, server: impl Into<Cow<'static, str>>) -> Self {
        self.servers.push(server.into());
        self
    }

    /// Adds an MCP tool filter.
    pub fn with_mcp_filter(
        mut self,
        server: impl Into<Cow<'static, str>>,
        globs: impl IntoIterator<Item = impl Into<Cow<'static, str>>>,
    ) -> Self {
        self.mcp_tools.push(McpFilter {
            server: server.into(),
            globs: globs.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// Adds a child agent.
    pub fn with_agent(mut self, agent: impl Into<Cow<'static, str>>) -> Self {
        self.agents.push(agent.into());
        self
    }

    /// Sets the input schema used when the agent is called as a tool.
    pub fn with_tool_input_schema(mut self, schema: Value) -> Self {
        self.tool_input_schema = Some(schema);
        self
    }
}

/// The prefix of an agent's Restate service names (see
/// [`Agent::DURABLE_NAME`]): an ASCII letter, then ASCII letters, digits,
/// `_`, `.` or `-`, at most 64 characters
/// ([`hookwire_spec::is_valid_durable_name`]).
///
/// ```
/// use hookwire::agent::DurableName;
/// const PMO: DurableName = DurableName::new("Pmo"); // checked at compile time
/// assert_eq!(PMO.session_service(), "PmoSession");
/// assert_eq!(DurableName::parse("billing").unwrap().approval_service(), "billingApproval");
/// assert!(DurableName::parse("pmo/eu").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DurableName(Cow<'static, str>);

/// A durable name that breaks the rule of [`DurableName`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}: {help}")]
#[non_exhaustive]
pub struct DurableNameError {
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

impl DurableName {
    /// `name`, checked at compile time when used in a `const`: an invalid
    /// one fails the build there ("invalid durable name").
    pub const fn new(name: &'static str) -> Self {
        assert!(
            hookwire_spec::is_valid_durable_name(name),
            "invalid durable name: an ASCII letter, then ASCII letters, digits, `_`, `.` or `-`, at most 64 characters"
        );
        Self(Cow::Borrowed(name))
    }

    /// `name`, checked at run time.
    pub fn parse(name: &str) -> Result<Self, DurableNameError> {
        hookwire_spec::check_durable_name(name).map_err(|e| DurableNameError {
            message: e.message,
            help: e.help,
        })?;
        Ok(Self(Cow::Owned(name.to_owned())))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The virtual object of the agent's sessions: `<name>Session`.
    pub fn session_service(&self) -> String {
        format!("{}Session", self.0)
    }

    /// The private virtual object of its approval gates: `<name>Approval`.
    pub fn approval_service(&self) -> String {
        format!("{}Approval", self.0)
    }
}

impl std::fmt::Display for DurableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An agent declaration: what `#[agent(...)]` on a struct and `cardgen`
/// generate. Its statically known tools (function tools and agents as
/// tools), each behind its chain of hooks, come as one [`ToolSet`] type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire agent",
    label = "not an agent",
    note = "agents are structs marked `#[hookwire::agent(...)]`, or generated from AgentCards by `cardgen`"
)]
pub trait Agent: Send + Sync + 'static {
    /// The statically dispatched tool set.
    type Tools: ToolSet;

    /// The prefix of the agent's Restate service names when it is served
    /// durably (feature `durable`): `<name>Session` and `<name>Approval`.
    /// Generated agents set it from `durable_name` (`#[agent(durable_name =
    /// "..")]`, a card's `durable_name:`), or derive it from their name
    /// ([`hookwire_spec::derived_durable_name`]: `durable-PMO` is
    /// `DurablePMO`); a hand-written agent has `Agent` (`AgentSession`,
    /// `AgentApproval`) unless it sets its own.
    const DURABLE_NAME: DurableName = DurableName::new("Agent");

    /// The declaration's fields.
    fn config(&self) -> &AgentConfig;

    /// The tools, each behind its generated chain.
    fn tools(&self) -> &Self::Tools;

    /// The agent's lifecycle hooks (`#[agent(hooks = ...)]`, a card's
    /// `hooks:`); none by default. Several hooks are a tuple, run in
    /// declared order.
    fn lifecycle_hooks(&self) -> impl crate::agent::lifecycle::LifecycleHooks {}

    /// The agent-level hooks whose matcher selects none of `tools` (the
    /// name, source and metadata of every tool the agent has), as
    /// `(hook, matcher)`.
    /// A hook that selects no static tool is a compile error, unless the
    /// agent also has tools discovered at run time; then this is asked once
    /// they are known (`mcp::McpAgent`, feature `mcp`, does when it
    /// connects, and every run then reports it). Generated agents implement
    /// it; the default reports none.
    fn hooks_selecting_none(
        &self,
        tools: &[hookwire_chain::matcher::MatchTarget<'_>],
    ) -> Vec<(&'static str, String)> {
        let _ = tools;
        Vec::new()
    }

    /// The hooks a call of `tool` runs through, outermost first, as the
    /// trace shows them (agent-level and entry hooks; a tool's own hooks
    /// are part of the tool). Generated agents implement it; the default
    /// knows none.
    fn hooks_for(&self, tool: &str, source: crate::context::ToolSource) -> Vec<&'static str> {
        let _ = (tool, source);
        Vec::new()
    }

    /// [`hooks_for`](Agent::hooks_for) a call of the tool `target` (its
    /// name, source and metadata): what the loop records. A tool found at
    /// run time is matched on its metadata too (`meta:` matchers).
    /// Generated agents implement it; the default asks `hooks_for`.
    fn hooks_for_call(
        &self,
        target: &hookwire_chain::matcher::MatchTarget<'_>,
    ) -> Vec<&'static str> {
        self.hooks_for(target.tool, target.source)
    }

    /// What every run of the agent reports as a `warn` event and a
    /// [`TraceEvent::Warning`](crate::agent::TraceEvent::Warning), such as a
    /// hook that selects none of the tools found when MCP servers connected.
    /// None by default.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// The tools the agent's tool sources refuse to offer now (an MCP tool
    /// that differs from its server's lock, `mcp::McpAgent` with a locked
    /// `McpConfig`). The loop asks before every model request: each new
    /// one is recorded as a [`TraceEvent::ToolRefused`](crate::agent::TraceEvent::ToolRefused),
    /// and one that [`stops`](RefusedTool::stops) ends the run with
    /// [`RunError::ToolsRefused`](crate::agent::RunError::ToolsRefused).
    /// None by default.
    fn refused_tools(&self) -> Vec<RefusedTool> {
        Vec::new()
    }

    /// Runs a call of a tool discovered at run time (an MCP tool) through
    /// the agent-level hooks, in declared order, each applied if its
    /// matcher selects the tool (evaluated at run time), around `inner`.
    /// Generated agents implement it; the default has no hooks.
    fn call_dynamic<C: crate::hook::Handler>(
        &self,
        cx: &mut crate::context::ToolContext,
        args: hookwire_chain::call::ToolArgs,
        inner: &C,
    ) -> impl std::future::Future<Output = hookwire_chain::call::Outcome> + Send {
        inner.call(cx, args)
    }
}

/// A tool an agent's tool source refuses to offer the model
/// ([`Agent::refused_tools`]), and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct RefusedTool {
    /// The tool (an MCP tool as `server__tool`).
    pub tool: String,
    /// Why, naming what differs.
    pub reason: String,
    /// Whether the run stops (a lock's `on_change: stop`) rather than go
    /// on without it.
    pub stops: bool,
}

impl RefusedTool {
    /// A refused tool.
    pub fn new(tool: impl Into<String>, reason: impl Into<String>, stops: bool) -> Self {
        Self {
            tool: tool.into(),
            reason: reason.into(),
            stops,
        }
    }
}

impl std::fmt::Display for RefusedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tool `{}` refused: {}", self.tool, self.reason)
    }
}
