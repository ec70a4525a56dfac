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
    FailurePolicy, Frequency, HistoryMergeTarget, HistorySource, HookEvent, HookKind, Matcher,
    MatcherError, RefreshCondition, ToolSource,
};
use crate::spec::{agent_tool_name, injection_tool_names};

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
    /// How many calls of this agent (as a tool) may run at once (> 0).
    pub max_parallel: Option<u64>,
    /// How long one call of this agent (as a tool) may take, in seconds (> 0).
    pub child_timeout_sec: Option<u64>,
    /// Which history the agent sees when called as a tool.
    pub history_source: HistorySource,
    /// Where its conversation is merged after a call.
    pub history_merge_target: HistoryMergeTarget,
    /// How many instances a display shows at most (> 0).
    pub max_display_instances: Option<u64>,
    /// The model, as `provider:model` or a model name.
    pub model: Option<String>,
    /// Whether the agent keeps its history between runs (default `true`).
    pub use_history: Option<bool>,
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
    /// Where the declaration is (the struct name for `#[agent]`).
    pub span: SpanInfo,
}

/// A lifecycle hook: a Rust type implementing
/// `hookwire::agent::lifecycle::LifecycleHooks`, built with `Default`. Its
/// tool events (`pre_tool_use`, `post_tool_use`, `post_tool_failure`) apply
/// to the tools `matcher` selects.
#[derive(Debug, Clone)]
pub struct LifecycleRef {
    /// The path of the hook type, as Rust source.
    pub ty: String,
    /// Which tools its tool events apply to (`*` by default).
    pub matcher: Matcher,
    /// What happens when it fails (panics or times out); `None` keeps each
    /// event's default (closed where the hook can block the run or the
    /// call, open elsewhere).
    pub policy: Option<FailurePolicy>,
    /// The time limit of each of its methods, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// How `explain` and `graph` show it (a card's `file.rs:Type`); `None`
    /// means the last segment of `ty`.
    pub label: Option<String>,
    /// Where the reference is.
    pub span: SpanInfo,
    /// Where its `match` pattern is, if written: an error about the
    /// matcher (a part that selects no tool) points there.
    pub match_span: SpanInfo,
    /// The path as the front end's tokens, if it has them.
    pub tokens: PathTokens,
}

impl LifecycleRef {
    /// A lifecycle hook of type `ty`, for every tool.
    pub fn new(ty: impl Into<String>) -> Self {
        Self {
            ty: ty.into(),
            matcher: Matcher::Always,
            policy: None,
            timeout_ms: None,
            label: None,
            span: None,
            match_span: None,
            tokens: None,
        }
    }

    /// The label shown by `explain` and `graph`.
    pub fn display_name(&self) -> &str {
        display_name(self.label.as_deref(), &self.ty)
    }

    /// Whether the emitter wraps this hook in the `LifecycleGuard` (a
    /// policy or a timeout is given).
    pub fn is_guarded(&self) -> bool {
        self.policy.is_some() || self.timeout_ms.is_some()
    }
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

/// An MCP tool filter: the tools of `server` matching one of `globs`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpToolsSpec {
    /// The server's name.
    pub server: String,
    /// Globs over the server's tool names.
    pub globs: Vec<String>,
}

/// A statically known tool: a Rust type implementing `hookwire::Tool`.
#[derive(Debug, Clone)]
pub struct ToolRef {
    /// The path of the tool type (`crate::tools::AddOne`), as Rust source.
    pub ty: String,
    /// An expression that builds the tool, as Rust source; `None` means
    /// `<ty as Default>::default()` (what `#[tool]` types and the card
    /// adapters provide).
    pub init: Option<String>,
    /// The tool's name as the model sees it. It must equal what the type's
    /// `Tool::name` returns: dispatch and matcher resolution use it at code
    /// generation time.
    pub name: String,
    /// Where the tool comes from (for matchers and the hook context).
    pub source: ToolSource,
    /// Tool-level hooks, in declared order, inside the agent-level ones.
    pub hooks: Vec<HookRef>,
    /// Where the reference is.
    pub span: SpanInfo,
    /// The path as the front end's tokens, if it has them.
    pub tokens: PathTokens,
    /// The metadata the tool declares (`#[tool(meta(..))]`), when the front
    /// end knows it (cards read it from the function's attribute); `None`
    /// (the `#[agent]` macro, which cannot see another item's attribute):
    /// the generated code reads the tool's `Tool::META` at compile time.
    pub meta: Option<crate::spec::ToolMeta>,
    /// The agent's availability rule for the tool (an entry's
    /// `available`): a `fn(&StepView) -> bool`, besides the tool's own.
    pub available: Option<FnRef>,
    /// What the agent adds to the system prompt for the tool (an entry's
    /// `instruction`), after the tool's own.
    pub instruction: Option<InstructionRef>,
}

/// An instruction an entry declares (`instruction: ..` on a tool's or a
/// server's entry): a text, or a `fn(&StepView) -> String` asked each step.
#[derive(Debug, Clone)]
pub enum InstructionRef {
    /// The same text in every step.
    Text(String),
    /// A function asked each step (an empty text adds nothing).
    Fn(FnRef),
}

/// What an agent says about all the tools of one of its MCP servers (a
/// card's `servers:` entry written as a mapping).
#[derive(Debug, Clone)]
pub struct ServerRulesSpec {
    /// The server's name (one of the agent's `servers`).
    pub server: String,
    /// Whether its tools are offered in a step: a `fn(&StepView) -> bool`.
    pub available: Option<FnRef>,
    /// What the agent adds to the system prompt while they are offered.
    pub instruction: Option<InstructionRef>,
}

impl ToolRef {
    /// A function tool of type `ty` named `name`, built with `Default`.
    pub fn new(ty: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            ty: ty.into(),
            init: None,
            name: name.into(),
            source: ToolSource::Function,
            hooks: Vec::new(),
            span: None,
            tokens: None,
            meta: None,
            available: None,
            instruction: None,
        }
    }

    /// Sets the metadata the tool declares.
    pub fn with_meta(mut self, meta: crate::spec::ToolMeta) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Sets the expression that builds the tool.
    pub fn with_init(mut self, init: impl Into<String>) -> Self {
        self.init = Some(init.into());
        self
    }

    /// Adds a tool-level hook.
    pub fn with_hook(mut self, hook: HookRef) -> Self {
        self.hooks.push(hook);
        self
    }
}

/// A hook around tool calls: a Rust type implementing `hookwire::Hook` (or
/// a pre/post hook, see [`HookKind`]).
#[derive(Debug, Clone)]
pub struct HookRef {
    /// The path of the hook type, as Rust source.
    pub ty: String,
    /// An expression that builds the hook, as Rust source; `None` means
    /// `<ty as Default>::default()`. Every chain the hook is part of gets
    /// its own value.
    pub init: Option<String>,
    /// How the type plugs in.
    pub kind: HookKind,
    /// Which tools it applies to (resolved at code generation time for
    /// statically known tools).
    pub matcher: Matcher,
    /// What happens when it fails.
    pub policy: FailurePolicy,
    /// Its time limit in milliseconds.
    pub timeout_ms: Option<u64>,
    /// A human-readable label for `explain` and `graph` (defaults to the
    /// last segment of `ty`).
    pub label: Option<String>,
    /// Where the reference is.
    pub span: SpanInfo,
    /// Where its `match` pattern is, if written: an error about the
    /// matcher (a part that selects no tool) points there.
    pub match_span: SpanInfo,
    /// The path as the front end's tokens, if it has them.
    pub tokens: PathTokens,
}

impl HookRef {
    /// An around-hook of type `ty`, applying to every tool, fail-closed, no
    /// timeout.
    pub fn new(ty: impl Into<String>) -> Self {
        Self {
            ty: ty.into(),
            init: None,
            kind: HookKind::Around,
            matcher: Matcher::Always,
            policy: FailurePolicy::FailClosed,
            timeout_ms: None,
            label: None,
            span: None,
            match_span: None,
            tokens: None,
        }
    }

    /// Sets the matcher from its string syntax.
    pub fn with_match(mut self, pattern: &str) -> Result<Self, MatcherError> {
        self.matcher = Matcher::parse(pattern)?;
        Ok(self)
    }

    /// Sets the failure policy.
    pub fn with_policy(mut self, policy: FailurePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the timeout.
    pub fn with_timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// Sets the kind.
    pub fn with_kind(mut self, kind: HookKind) -> Self {
        self.kind = kind;
        self
    }

    /// Sets the label.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Whether the emitter wraps this hook in `Guarded` (a non-default
    /// policy or a timeout).
    pub fn is_guarded(&self) -> bool {
        self.policy != FailurePolicy::FailClosed || self.timeout_ms.is_some()
    }

    /// The label shown by `explain` and `graph`.
    pub fn display_name(&self) -> &str {
        display_name(self.label.as_deref(), &self.ty)
    }
}

/// `label`, or else the last segment of the type path `ty`.
fn display_name<'a>(label: Option<&'a str>, ty: &'a str) -> &'a str {
    label.unwrap_or_else(|| ty.rsplit("::").next().unwrap_or(ty).trim())
}

/// A child agent exposed as a tool named `agent__<name>`.
#[derive(Debug, Clone, Default)]
pub struct AgentRef {
    /// The child agent's name.
    pub name: String,
    /// The path of the child's type (implementing
    /// `hookwire::agent::Agent`), as Rust source, when the front end
    /// knows it.
    pub ty: Option<String>,
    /// Where the reference is.
    pub span: SpanInfo,
    /// The path as the front end's tokens, if it has them.
    pub tokens: PathTokens,
    /// `output = path`: turns the child's run into the tool result
    /// (`fn(&RunOutput, &[Message]) -> R`, `R: IntoOutcome`).
    pub output: Option<FnRef>,
    /// `on_error = path`: turns an error of the call into what the parent
    /// model reads (`fn(ToolError) -> R`, `R: IntoOutcome`).
    pub on_error: Option<FnRef>,
    /// The metadata its tool carries (`agents = [X(meta(risk = "high"))]`,
    /// a card's `meta:`), for `meta:` matchers.
    pub meta: crate::spec::ToolMeta,
}

/// A function an entry names (`output = path`, a card's
/// `file.rs:function`), called where the generated code uses it.
#[derive(Debug, Clone, Default)]
pub struct FnRef {
    /// The function's path, as Rust source, from the generated module.
    pub path: String,
    /// Where the reference is.
    pub span: SpanInfo,
    /// The path as the front end's tokens, if it has them.
    pub tokens: PathTokens,
}

impl FnRef {
    /// The function at `path`.
    pub fn new(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            span: None,
            tokens: None,
        }
    }
}

impl AgentRef {
    /// A reference to the agent `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ty: None,
            span: None,
            tokens: None,
            output: None,
            on_error: None,
            meta: crate::spec::ToolMeta::EMPTY,
        }
    }

    /// The name the child has as a tool: `agent__<name>`.
    pub fn tool_name(&self) -> String {
        agent_tool_name(&self.name)
    }
}

/// A `hooks:` entry: something that fires at a lifecycle seam.
#[derive(Debug, Clone)]
pub struct EventHookSpec {
    /// Where it fires.
    pub event: HookEvent,
    /// A label for logs and diagnostics.
    pub name: Option<String>,
    /// Its time limit in seconds.
    pub timeout_sec: Option<u64>,
    /// What it does.
    pub action: EventHookAction,
    /// Where the entry is.
    pub span: SpanInfo,
}

/// What a `hooks:` entry does.
#[derive(Debug, Clone)]
pub enum EventHookAction {
    /// `kind: tool_call`: run a tool through its chain and inject the
    /// (assistant tool call, tool result) pair into the history (DIAL).
    ToolCall(ToolCallInjection),
    /// A Rust hook function for a lifecycle event (`hook: file.rs:function`
    /// in a card, a `#[hook]` type in `#[agent]`).
    Rust {
        /// The path of the hook type, as Rust source.
        ty: String,
        /// An expression that builds it (`None`: `Default::default()`).
        init: Option<String>,
    },
}

/// A `kind: tool_call` injection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCallInjection {
    /// The toolset (MCP server) name; when set the tool is called
    /// `<toolset>__<tool>` (or `<toolset>_<tool>` sanitized, whichever the
    /// agent has: see [`injection_tool_names`](crate::spec::injection_tool_names)).
    pub toolset_name: Option<String>,
    /// The tool name.
    pub tool_name: String,
    /// The arguments, as JSON text of an object.
    pub arguments: String,
    /// How often to inject.
    pub frequency: Frequency,
    /// When a previous result may be reused.
    pub refresh_condition: Option<RefreshCondition>,
}

impl ToolCallInjection {
    /// The name the runtime calls first: `toolset__tool` (an MCP tool's
    /// name), or the tool name verbatim without a toolset. (The runtime
    /// falls back to DIAL's sanitized `toolset_tool` when the agent has no
    /// tool of the first name.)
    pub fn final_tool_name(&self) -> String {
        injection_tool_names(self.toolset_name.as_deref(), &self.tool_name).swap_remove(0)
    }
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

    #[test]
    fn enums_parse_their_card_spellings_and_list_the_rest() {
        assert_eq!("child".parse(), Ok(HistorySource::Child));
        assert_eq!("orchestrator".parse(), Ok(HistoryMergeTarget::Orchestrator));
        assert_eq!("open".parse(), Ok(FailurePolicy::FailOpen));
        let err = "on_start".parse::<HookEvent>().unwrap_err();
        assert!(err.to_string().contains("on_request_start, on_completion"));
        for (name, event) in HookEvent::ALL {
            assert_eq!(event.as_str(), name);
        }
    }

    #[test]
    fn final_tool_name_is_the_name_the_runtime_calls_first() {
        // `cardgen explain` shows this name; the runtime calls
        // `toolset__tool` first (an MCP tool's name), so they must agree.
        let mut call = ToolCallInjection {
            toolset_name: Some("memory".into()),
            tool_name: "get_memories".into(),
            ..Default::default()
        };
        assert_eq!(call.final_tool_name(), "memory__get_memories");
        call.toolset_name = None;
        assert_eq!(call.final_tool_name(), "get_memories");
    }
}
