//! Shared helpers for the agent tests.
#![allow(dead_code)]

use hookwire::ToolSet;
use hookwire::agent::{AgentConfig, BasicAgent};

/// A hand-built agent: the runtime's own `BasicAgent`.
pub type TestAgent<T, H = ()> = BasicAgent<T, H>;

/// A test agent named `name` with `tools` and no lifecycle hooks.
pub fn test_agent<T: ToolSet + 'static>(name: &'static str, tools: T) -> TestAgent<T> {
    BasicAgent::new(
        AgentConfig::new(name).with_instruction("You are a test agent."),
        tools,
    )
}
pub mod seeing;

/// The text of every tool result in `history`, in order: what the model
/// read.
pub fn tool_results(history: &[hookwire::model::Message]) -> Vec<String> {
    history
        .iter()
        .filter_map(hookwire::model::Message::tool_result)
        .map(hookwire::ToolResult::text_content)
        .collect()
}

/// The tool calls of a trace as `id tool(arguments) -> result`.
pub fn calls_run(trace: &[hookwire::agent::TraceEvent]) -> Vec<String> {
    trace
        .iter()
        .filter_map(|e| match e {
            hookwire::agent::TraceEvent::ToolCall(call) => Some(format!(
                "{} {}({}) -> {}",
                call.id,
                call.tool,
                serde_json::to_string(&call.arguments).unwrap_or_default(),
                call.result.text_content()
            )),
            _ => None,
        })
        .collect()
}

/// The model text deltas among a streamed run's events, in order.
pub fn text_deltas(events: &[hookwire::agent::RunEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            hookwire::agent::EventKind::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}
