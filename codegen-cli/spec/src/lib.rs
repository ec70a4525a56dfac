//! The shared specification: the vocabulary both front ends (the `#[agent]`
//! macro and AgentCards) lower to, and that the runtime evaluates.

mod agent;
pub mod dispatch;
mod matcher;
mod source;

pub use agent::{
    AgentRef, AgentSpec, EventHookAction, EventHookSpec, FailurePolicy, Frequency,
    HistoryMergeTarget, HistorySource, HookEvent, HookKind, HookPlace, HookRef, LifecycleRef,
    McpToolsSpec, RefreshCondition, SpanInfo, ToolCallInjection, ToolRef, UnknownValue,
    UnmatchedHook, nearest_names, sanitize_tool_name,
};
pub use matcher::{MatchTarget, Matcher, MatcherError};
pub use source::{ToolSource, UnknownToolSource};
