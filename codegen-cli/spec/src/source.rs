use std::fmt;
use std::str::FromStr;

/// Where a tool comes from. Hooks see it in their context and matchers can
/// select on it (`source:mcp`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ToolSource {
    /// A tool discovered on an MCP server at run time.
    Mcp,
    /// A Rust function declared with `#[tool]` or in `function_tools`.
    Function,
    /// A child agent exposed as a tool (`agent__<Name>`).
    Agent,
    /// A tool provided by the runtime itself (for example a shell tool).
    Runtime,
}

impl ToolSource {
    /// Every source, in declaration order.
    pub const ALL: [ToolSource; 4] = [Self::Mcp, Self::Function, Self::Agent, Self::Runtime];

    /// The lowercase name used in cards, matchers and traces.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Mcp => "mcp",
            Self::Function => "function",
            Self::Agent => "agent",
            Self::Runtime => "runtime",
        }
    }
}

impl fmt::Display for ToolSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a tool source name that is not one of `mcp`, `function`,
/// `agent` or `runtime`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool source `{0}` (expected one of: mcp, function, agent, runtime)")]
pub struct UnknownToolSource(pub String);

impl FromStr for ToolSource {
    type Err = UnknownToolSource;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|source| source.as_str() == s)
            .ok_or_else(|| UnknownToolSource(s.to_owned()))
    }
}
