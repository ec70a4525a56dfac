//! The agent spec ([`AgentSpec`]) both front ends lower to, and its checks
//! ([`AgentSpec::validate`]), which each front end reports in its own terms
//! (the `#[agent]` macro on a span, the cards at `file:line:col`).
//!
//! It lives here, not in `hookwire-spec`: the runtime shares the
//! vocabulary (matchers, tool sources, names) but never reads a spec, so
//! it does not compile this part. It is re-exported in [`crate::spec`].
//!
//! * [`agent`](AgentSpec): the spec itself and the one ordering rule of a
//!   tool's hooks;
//! * `refs`: what it refers to (tools, hooks, child agents, functions);
//! * `event`: its `hooks:` entries;
//! * [`settings`](Settings): its keys that hold one plain value, a field
//!   per row of the settings table;
//! * `check`: the rules it must follow;
//! * `policy`: its [`Policy`](crate::spec::Policy) and coverage rules.

mod agent;
mod check;
mod event;
mod policy;
mod refs;
mod settings;

pub use agent::{AgentSpec, ChainHook, PathTokens, SpanInfo};
pub use check::{
    AGENT_FIELDS, HOOK_OPTIONS, HookPlace, LIFECYCLE_OPTIONS, MCP_META_KEYS, SpecError, SpecField,
    StaticTool, UndecidedHook, UniqueToolNames, UnmatchedHook, check_mcp_filter_server,
    check_tool_input_schema,
};
pub use event::{EventHookAction, EventHookSpec, ToolCallInjection};
pub(crate) use policy::hook_name;
pub use policy::{CoverageSpec, PolicyEntry, Selection, policy_hook};
pub use refs::{
    AgentRef, FnRef, HookRef, InstructionRef, LifecycleRef, McpToolsSpec, ServerRulesSpec, ToolRef,
};
pub use settings::Settings;
