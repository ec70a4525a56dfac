//! The agent spec ([`AgentSpec`]) both front ends lower to, and its checks
//! ([`AgentSpec::validate`]), which each front end reports in its own terms
//! (the `#[agent]` macro on a span, the cards at `file:line:col`).
//!
//! It lives here, not in `hookwire-spec`: the runtime shares the
//! vocabulary (matchers, tool sources, names) but never reads a spec, so
//! it does not compile this part. It is re-exported in [`crate::spec`].

mod agent;
mod check;

pub use agent::{
    AgentRef, AgentSpec, ChainHook, EventHookAction, EventHookSpec, FnRef, HookRef, InstructionRef,
    LifecycleRef, McpToolsSpec, PathTokens, ServerRulesSpec, SpanInfo, ToolCallInjection, ToolRef,
};
pub use check::{
    AGENT_FIELDS, HOOK_OPTIONS, HookPlace, LIFECYCLE_OPTIONS, MCP_META_KEYS, SpecError, SpecField,
    UndecidedHook, UniqueToolNames, UnmatchedHook, check_mcp_filter_server, check_positive,
    check_tool_input_schema,
};
