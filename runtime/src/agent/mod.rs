//! Agents: the declaration that `#[agent]` and `cardgen` generate, and the
//! loop that runs it.

mod decl;

pub use decl::{AgentConfig, AgentDecl, HistoryMergeTarget, HistorySource, McpFilter};
