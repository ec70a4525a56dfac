//! Agents: the declaration that `#[agent]` and `cardgen` generate, and the
//! loop that runs it.
//!
//! * [`Agent`] / [`AgentConfig`]: what a declaration says: its tools
//!   (each behind its generated chain), its fields, its
//!   [lifecycle hooks](lifecycle) and its config-driven
//!   [`RequestHook`]s.
//! * [`Runner`]: the loop. User message -> model -> tool calls (run
//!   concurrently up to `max_parallel`, results in call order) -> model ...
//!   until a final answer, a stop, a pause for approval or the step limit.
//!   Every tool call passes the lifecycle `pre_tool_use` hooks, the
//!   agent-level approval settings, and then the tool's own chain
//!   (`Agent::tools().dispatch`). It returns a [`RunOutput`] with a
//!   [`TraceEvent`] trace, and exports/imports a [`RunState`].
//! * [`AgentTool`]: a child agent as the tool `agent__<Name>`.
//!
//! A stop (from a lifecycle hook or a chain) ends the run after the step
//! it happened in: the stopped call never runs; calls of the same step that
//! were already dispatched concurrently finish, and their results join the
//! history, so that every tool call in the history has its result.

mod as_tool;
mod basic;
mod decl;
mod dynamic;
pub mod inject;
mod journal;
pub mod lifecycle;
mod metadata;
mod runner;
pub(crate) mod runtime_tools;

pub use as_tool::{AgentOutput, AgentTool, agent_tool_name};
pub use basic::BasicAgent;
pub use decl::{
    Agent, AgentConfig, DurableName, DurableNameError, HistoryMergeTarget, HistorySource,
    McpFilter, RefusedTool,
};
pub use dynamic::AgentHooked;
pub use inject::{Frequency, HookEvent, RefreshCondition, RequestHook, RequestHookKind};
pub use journal::{Journal, JournalError};
pub use metadata::RunMetadata;
pub use runner::{
    EventKind, MIN_STATE_KEY_BYTES, PausedChild, PendingStep, RunError, RunEvent, RunOutput,
    RunSettings, RunState, RunStatus, RunStream, Runner, STATE_VERSION, SetupError, StateError,
    StateKey, StateKeyError, StateSeal, ToolCallEvent, TraceEvent, TraceLines, TypedAgent,
    TypedOutput,
};
pub use runtime_tools::{RuntimeTools, WithTools};
