//! Agents: the declaration that `#[agent]` and `cardgen` generate, and the
//! loop that runs it.

mod as_tool;
mod decl;
pub mod inject;
pub mod lifecycle;
mod runner;

pub use as_tool::{AgentTool, agent_tool_name};
pub use decl::{AgentConfig, AgentDecl, HistoryMergeTarget, HistorySource, McpFilter};
pub use inject::{Frequency, HookEvent, HookKind, RefreshCondition, RequestHook};
pub use runner::{
    PendingStep, RunError, RunOutput, RunSettings, RunState, RunStatus, Runner, TraceEvent,
    guess_source,
};
