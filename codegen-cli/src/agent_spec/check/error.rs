//! What a check reports: the part of the spec ([`SpecField`]) and the
//! message ([`SpecError`]).

use std::fmt;

use super::HookPlace;

/// The part of an [`AgentSpec`](crate::spec::AgentSpec) a check found wrong, so that a front end
/// can point at where it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SpecField {
    /// `name`.
    Name,
    /// `max_parallel`.
    MaxParallel,
    /// `child_timeout_sec`.
    ChildTimeoutSec,
    /// `max_display_instances`.
    MaxDisplayInstances,
    /// `tool_input_schema`.
    ToolInputSchema,
    /// `function_tools[i]`.
    FunctionTool(usize),
    /// `agents[i]`.
    Agent(usize),
    /// A hook with a matcher, and its `timeout_ms`.
    Hook(HookPlace),
    /// `hooks[i]` (a `kind: tool_call` entry, its `timeout_sec` or
    /// `ttl_minutes`).
    EventHook(usize),
    /// `tools.<server>`, the `i`th MCP tool filter.
    McpTools(usize),
}

/// A rule a spec breaks: where, and the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct SpecError {
    /// Where.
    pub field: SpecField,
    /// What is wrong (without a hint in a front end's syntax).
    pub message: String,
    /// For a duplicate, where the first one is.
    pub first: Option<SpecField>,
}

impl SpecError {
    pub(super) fn new(field: SpecField, message: String) -> Self {
        Self {
            field,
            message,
            first: None,
        }
    }
}

impl fmt::Display for SpecField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name => f.write_str("name"),
            Self::MaxParallel => f.write_str("max_parallel"),
            Self::ChildTimeoutSec => f.write_str("child_timeout_sec"),
            Self::MaxDisplayInstances => f.write_str("max_display_instances"),
            Self::ToolInputSchema => f.write_str("tool_input_schema"),
            Self::FunctionTool(i) => write!(f, "function_tools[{i}]"),
            Self::Agent(i) => write!(f, "agents[{i}]"),
            Self::Hook(HookPlace::ToolHook(i)) => write!(f, "tool_hooks[{i}]"),
            Self::Hook(HookPlace::ToolEntry { tool, hook }) => {
                write!(f, "function_tools[{tool}].hooks[{hook}]")
            }
            Self::Hook(HookPlace::Lifecycle(i)) | Self::EventHook(i) => write!(f, "hooks[{i}]"),
            Self::McpTools(i) => write!(f, "tools[{i}]"),
        }
    }
}
