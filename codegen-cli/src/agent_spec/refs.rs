//! What a spec refers to: tools, hooks, lifecycle hooks, child agents,
//! functions and instructions, each with where the front end read it.

use crate::spec::{FailurePolicy, HookKind, Matcher, MatcherError, ToolSource, agent_tool_name};
use crate::spec::{PathTokens, SpanInfo};

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
    /// Whether it may rewrite the call's arguments, when the front end
    /// read its signature (cards do); `None`: the compiler reads it from
    /// the type (`Hook::REWRITES`), and the spec's policy says it may.
    pub rewrites: Option<bool>,
    /// How it acts on a call when the front end read its signature (a
    /// `#[hook]` function's kind: its type implements `Hook` whatever the
    /// kind); `None`: `kind`, or in generated code `Hook::PHASE`.
    pub phase: Option<HookKind>,
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
            rewrites: None,
            phase: None,
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
