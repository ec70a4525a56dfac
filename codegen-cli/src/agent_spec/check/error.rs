//! What a check reports: the part of the spec ([`SpecField`]) and the
//! message ([`SpecError`]).

use std::fmt;

use super::HookPlace;
use super::fields::key;

/// The part of an [`AgentSpec`](crate::spec::AgentSpec) a check found wrong, so that a front end
/// can point at where it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SpecField {
    /// `name`.
    Name,
    /// A setting (a row of the settings table), by its key: `max_parallel`.
    Setting(&'static str),
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
    pub(crate) fn new(field: SpecField, message: String) -> Self {
        Self {
            field,
            message,
            first: None,
        }
    }
}

impl SpecField {
    /// The key of the declaration this part is written under (`agents` for
    /// `agents[i]`, `function_tools` for a tool's own hook).
    pub(super) const fn key(self) -> &'static str {
        match self {
            Self::Name => key::NAME,
            Self::Setting(key) => key,
            Self::ToolInputSchema => key::TOOL_INPUT_SCHEMA,
            Self::FunctionTool(_) | Self::Hook(HookPlace::ToolEntry { .. }) => key::FUNCTION_TOOLS,
            Self::Agent(_) => key::AGENTS,
            Self::Hook(HookPlace::ToolHook(_)) => key::TOOL_HOOKS,
            Self::Hook(HookPlace::Lifecycle(_)) | Self::EventHook(_) => key::HOOKS,
            Self::McpTools(_) => key::TOOLS,
        }
    }
}

impl fmt::Display for SpecField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.key();
        match *self {
            Self::Name | Self::Setting(_) | Self::ToolInputSchema => f.write_str(name),
            Self::FunctionTool(i)
            | Self::Agent(i)
            | Self::Hook(HookPlace::ToolHook(i) | HookPlace::Lifecycle(i))
            | Self::EventHook(i)
            | Self::McpTools(i) => write!(f, "{name}[{i}]"),
            Self::Hook(HookPlace::ToolEntry { tool, hook }) => {
                write!(f, "{name}[{tool}].{}[{hook}]", key::HOOKS)
            }
        }
    }
}
