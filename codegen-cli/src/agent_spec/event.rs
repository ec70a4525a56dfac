//! `hooks:` entries: what fires at a lifecycle seam, and the tool calls
//! injected into the history (`kind: tool_call`).

use crate::spec::{Frequency, HookEvent, RefreshCondition, SpanInfo, injection_tool_names};

/// A `hooks:` entry: something that fires at a lifecycle seam.
#[derive(Debug, Clone)]
pub struct EventHookSpec {
    /// Where it fires.
    pub event: HookEvent,
    /// A label for logs and diagnostics.
    pub name: Option<String>,
    /// Its time limit in seconds.
    pub timeout_sec: Option<u64>,
    /// What it does.
    pub action: EventHookAction,
    /// Where the entry is.
    pub span: SpanInfo,
}

/// What a `hooks:` entry does.
#[derive(Debug, Clone)]
pub enum EventHookAction {
    /// `kind: tool_call`: run a tool through its chain and inject the
    /// (assistant tool call, tool result) pair into the history (DIAL).
    ToolCall(ToolCallInjection),
    /// A Rust hook function for a lifecycle event (`hook: file.rs:function`
    /// in a card, a `#[hook]` type in `#[agent]`).
    Rust {
        /// The path of the hook type, as Rust source.
        ty: String,
        /// An expression that builds it (`None`: `Default::default()`).
        init: Option<String>,
    },
}

/// A `kind: tool_call` injection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCallInjection {
    /// The toolset (MCP server) name; when set the tool is called
    /// `<toolset>__<tool>` (or `<toolset>_<tool>` sanitized, whichever the
    /// agent has: see [`injection_tool_names`](crate::spec::injection_tool_names)).
    pub toolset_name: Option<String>,
    /// The tool name.
    pub tool_name: String,
    /// The arguments, as JSON text of an object.
    pub arguments: String,
    /// How often to inject.
    pub frequency: Frequency,
    /// When a previous result may be reused.
    pub refresh_condition: Option<RefreshCondition>,
}

impl ToolCallInjection {
    /// The name the runtime calls first: `toolset__tool` (an MCP tool's
    /// name), or the tool name verbatim without a toolset. (The runtime
    /// falls back to DIAL's sanitized `toolset_tool` when the agent has no
    /// tool of the first name.)
    pub fn final_tool_name(&self) -> String {
        injection_tool_names(self.toolset_name.as_deref(), &self.tool_name).swap_remove(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_tool_name_is_the_name_the_runtime_calls_first() {
        // `cardgen explain` shows this name; the runtime calls
        // `toolset__tool` first (an MCP tool's name), so they must agree.
        let mut call = ToolCallInjection {
            toolset_name: Some("memory".into()),
            tool_name: "get_memories".into(),
            ..Default::default()
        };
        assert_eq!(call.final_tool_name(), "memory__get_memories");
        call.toolset_name = None;
        assert_eq!(call.final_tool_name(), "get_memories");
    }
}
