//! An agent's policy as data: every tool it can call, the hooks each call
//! runs through in the order they run, each hook's failure policy and
//! timeout, and the tool's approval rule ([`Policy`]), with its JSON
//! document ([`Policy::to_json`], schema version [`POLICY_VERSION`]); and
//! the coverage rules an agent can declare about it ([`CoverageRule`]),
//! checked by one `const fn` ([`coverage_problem`]) that the generated code
//! runs at compile time and `cardgen` at generation time.
//!
//! Every list and text is a `Cow<'static, ..>`: generated code builds a
//! policy as a constant (borrowed), `cardgen` from a spec (owned).
//!
//! ```
//! use std::borrow::Cow;
//! use hookwire_spec::{Approval, Policy, PolicyHook, PolicyTool, ToolKind};
//!
//! const HOOKS: &[PolicyHook] = &[PolicyHook::new("audit", "*")];
//! const TOOLS: &[PolicyTool] =
//!     &[PolicyTool::new("pay", ToolKind::Function, HOOKS, &[], Approval::Always, &[])];
//! const POLICY: Policy = Policy::new("shop", TOOLS, &[]);
//! let json = POLICY.to_json();
//! assert!(json.starts_with("{\n  \"version\": 1,\n  \"agent\": \"shop\","));
//! assert_eq!(POLICY.tools[0].chain().next().map(|h| &*h.name), Some("audit"));
//! ```

mod coverage;
mod serialize;

use std::borrow::Cow;

pub use coverage::{
    CoverageKind, CoverageProblem, CoverageRule, Message, UnknownCoverageRule, check_coverage,
    coverage_message, coverage_problem, parse_coverage_entry,
};

use crate::{FailurePolicy, HookKind};

/// The version of the policy document's schema: it changes when a key is
/// renamed, removed or changes meaning (a new key keeps it).
pub const POLICY_VERSION: u32 = 1;

/// Text of a policy: borrowed in generated constants, owned when built from
/// a spec.
pub type Text = Cow<'static, str>;

/// A list of a policy, borrowed or owned like [`Text`].
pub type List<T> = Cow<'static, [T]>;

/// An agent's policy: its tools with their chains and approval rules, and
/// the coverage rules it declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The agent's name.
    pub agent: Text,
    /// Every tool, in the order the model sees them: function tools, child
    /// agents, then the MCP tool filters and the run-time tools (whose
    /// hooks are chosen per call).
    pub tools: List<PolicyTool>,
    /// The coverage rules declared on the agent.
    pub coverage: List<CoverageRule>,
}

/// What kind of tool an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolKind {
    /// A Rust function tool.
    Function,
    /// A child agent exposed as a tool (`agent__<name>`).
    Agent,
    /// Tools of an MCP server, found when the agent connects: one entry per
    /// filter (`server__glob`), or `server__*` for a server without one.
    Mcp,
    /// Tools registered at run time (`runtime_tools`), entry `*`.
    Runtime,
}

impl ToolKind {
    /// `function`, `agent`, `mcp` or `runtime`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Function => "function",
            Self::Agent => "agent",
            Self::Mcp => "mcp",
            Self::Runtime => "runtime",
        }
    }
}

/// Where a hook is declared, which decides its place in the chain
/// (agent-level outermost, then the agent's entry for the tool, then the
/// tool's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookLevel {
    /// The agent's `tool_hooks`.
    Agent,
    /// The hooks of the agent's entry for this tool.
    Entry,
    /// The tool's own `tool_hooks` (`#[tool(tool_hooks = [..])]`).
    Own,
    /// A lifecycle hook's tool events (`pre_tool_use`, `post_tool_use`),
    /// run by the agent loop around the chain.
    Lifecycle,
}

impl HookLevel {
    /// `agent`, `entry`, `own` or `lifecycle`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Entry => "entry",
            Self::Own => "own",
            Self::Lifecycle => "lifecycle",
        }
    }
}

/// Whether a hook's matcher selects the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Selected {
    /// Decided when the agent was built: it runs on every call.
    Yes,
    /// Decided when the agent was built: it does not run (kept out of the
    /// document).
    No,
    /// Decided on each call (a tool found at run time; a `meta:` part on
    /// metadata an MCP server gives).
    PerCall,
}

impl Selected {
    /// `Yes` or `No`.
    pub const fn when(selected: bool) -> Self {
        if selected { Self::Yes } else { Self::No }
    }

    /// `build` or `call`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Yes | Self::No => "build",
            Self::PerCall => "call",
        }
    }
}

/// One hook a tool's calls run through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyHook {
    /// The hook's name: the last segment of its Rust path.
    pub name: Text,
    /// How it acts on the call: around, pre or post (a `#[hook]`
    /// function's from its signature, a type's `Hook::PHASE`; a lifecycle
    /// hook: around).
    pub phase: HookKind,
    /// Where it is declared.
    pub level: HookLevel,
    /// The matcher that selected it (`*` for a hook without one).
    pub matcher: Text,
    /// What happens when it fails; `None`: the default of each event (a
    /// lifecycle hook without `on_failure`).
    pub on_failure: Option<FailurePolicy>,
    /// Its time limit in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Whether its matcher selects the tool.
    pub selected: Selected,
    /// Whether it may rewrite the call's arguments: an around hook, a pre
    /// hook taking `&mut ToolArgs` or `&mut ArgsOf<tool>` (`Hook::REWRITES`
    /// of its type); not a pre hook taking `&ArgsOf<tool>`, nor a post
    /// hook. A lifecycle hook may (its `pre_tool_use`).
    pub rewrites: bool,
}

impl PolicyHook {
    /// An around-hook named `name` at the agent level, selected by `matcher`,
    /// failing closed, without a timeout.
    pub const fn new(name: &'static str, matcher: &'static str) -> Self {
        Self {
            name: Cow::Borrowed(name),
            phase: HookKind::Around,
            level: HookLevel::Agent,
            matcher: Cow::Borrowed(matcher),
            on_failure: Some(FailurePolicy::FailClosed),
            timeout_ms: None,
            selected: Selected::Yes,
            rewrites: true,
        }
    }

    /// Whether it runs before the tool and can stop the call (a pre or
    /// around hook of the chain): what the coverage rules call a guard.
    pub const fn is_guard(&self) -> bool {
        !matches!(self.phase, HookKind::Post) && !matches!(self.level, HookLevel::Lifecycle)
    }
}

/// A tool's own approval rule (`#[tool(needs_approval)]`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Approval {
    /// The tool asks for no approval itself.
    None,
    /// Every call asks the approver.
    Always,
    /// A call asks when the predicate (its path) says so.
    When(Text),
}

impl Approval {
    /// Whether the tool has an approval gate.
    pub const fn is_gated(&self) -> bool {
        !matches!(self, Self::None)
    }
}

/// One tool of a policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyTool {
    /// The tool's name (an MCP entry: `server__glob`; run-time tools: `*`).
    pub name: Text,
    /// Its kind.
    pub kind: ToolKind,
    /// The MCP server of an [`ToolKind::Mcp`] entry.
    pub server: Option<Text>,
    /// The agent's hooks around it (agent level, then the entry's),
    /// outermost first, with those that do not select it marked.
    pub hooks: List<PolicyHook>,
    /// The tool's own hooks, inside [`hooks`](Self::hooks).
    pub own_hooks: List<PolicyHook>,
    /// Its approval gate, inside its own hooks.
    pub approval: Approval,
    /// The lifecycle hooks whose tool events apply to its calls.
    pub lifecycle: List<PolicyHook>,
}

impl PolicyTool {
    /// A tool with its hooks.
    pub const fn new(
        name: &'static str,
        kind: ToolKind,
        hooks: &'static [PolicyHook],
        own_hooks: &'static [PolicyHook],
        approval: Approval,
        lifecycle: &'static [PolicyHook],
    ) -> Self {
        Self {
            name: Cow::Borrowed(name),
            kind,
            server: None,
            hooks: Cow::Borrowed(hooks),
            own_hooks: Cow::Borrowed(own_hooks),
            approval,
            lifecycle: Cow::Borrowed(lifecycle),
        }
    }

    /// The hooks its calls run through, outermost first: the agent's, then
    /// its own, leaving out those whose matcher does not select it.
    pub fn chain(&self) -> impl Iterator<Item = &PolicyHook> {
        self.hooks
            .iter()
            .chain(self.own_hooks.iter())
            .filter(|h| h.selected != Selected::No)
    }
}

impl Policy {
    /// A policy of `agent`.
    pub const fn new(
        agent: &'static str,
        tools: &'static [PolicyTool],
        coverage: &'static [CoverageRule],
    ) -> Self {
        Self {
            agent: Cow::Borrowed(agent),
            tools: Cow::Borrowed(tools),
            coverage: Cow::Borrowed(coverage),
        }
    }

    /// The tool `name`, if the policy has an entry of that name.
    pub fn tool(&self, name: &str) -> Option<&PolicyTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The policy as one JSON document (CARDS.md, "The policy document"):
    /// keys in a fixed order, two-space indented, ending in a line break.
    pub fn to_json(&self) -> String {
        let mut out = serialize::document(self);
        out.push('\n');
        out
    }
}

/// The text of a [`Text`] in a `const fn`.
pub(crate) const fn text(t: &Text) -> &str {
    match t {
        Cow::Borrowed(s) => s,
        Cow::Owned(s) => s.as_str(),
    }
}

/// The items of a [`List`] in a `const fn`.
pub(crate) const fn items<T: Clone>(l: &List<T>) -> &[T] {
    match l {
        Cow::Borrowed(s) => s,
        Cow::Owned(v) => v.as_slice(),
    }
}

#[cfg(test)]
mod tests;
