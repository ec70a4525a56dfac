//! A session's saved state: each large value once (the trace holds
//! previews of what the history holds in full).

use serde_json::Value;

use crate::agent::{RunState, ToolCallEvent, TraceEvent};
use crate::{ToolArgs, ToolResult};

/// A value in a trace event longer than this (in bytes) is saved once: in
/// full in the history, as a preview in the saved trace.
pub const TRACE_PREVIEW_BYTES: usize = 4 << 10;

/// The state as a session saves it: each large value once. The trace
/// repeats the prompt, the model's text and each call's arguments and
/// result, which the history holds; in the saved trace a value over
/// [`TRACE_PREVIEW_BYTES`] is a preview that says how long it was.
pub(crate) fn stored(mut state: RunState) -> RunState {
    for event in &mut state.trace {
        match event {
            TraceEvent::Prompt { text } | TraceEvent::Model { text, .. } => shorten(text),
            TraceEvent::ToolCall(call) => {
                let ToolCallEvent {
                    arguments,
                    received,
                    result,
                    ..
                } = &mut **call;
                for args in std::iter::once(arguments).chain(received.as_mut()) {
                    let json = serde_json::to_string(&*args).unwrap_or_default();
                    if json.len() > TRACE_PREVIEW_BYTES {
                        let mut preview = serde_json::Map::new();
                        preview.insert("preview".into(), Value::String(preview_of(&json)));
                        *args = ToolArgs::from_map(preview);
                    }
                }
                let bytes = serde_json::to_vec(&*result).map_or(0, |v| v.len());
                if bytes > TRACE_PREVIEW_BYTES {
                    let mut short = ToolResult::text(preview_of(&result.text_content()));
                    short.is_error = result.is_error;
                    *result = short;
                }
            }
            _ => {}
        }
    }
    state
}

fn shorten(text: &mut String) {
    if text.len() > TRACE_PREVIEW_BYTES {
        *text = preview_of(text);
    }
}

/// The first 1 KiB of `text` (at a character boundary) and its length.
fn preview_of(text: &str) -> String {
    let mut end = text.len().min(1 << 10);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… [{} bytes in all; the history has them in full]",
        &text[..end],
        text.len()
    )
}
