//! `genai`'s answer as ours, whole or streamed: the text, the tool
//! calls, the thoughts that must go back, the tokens.

use futures_util::StreamExt;
use genai::chat::{
    ChatResponse, ChatStreamEvent, ContentPart, MessageContent, ToolCall as GenaiCall,
};
use serde_json::Value;

use super::Provider;
use super::error::error;
use crate::model::{ModelError, ModelResponse, Thought, Usage};
use hookwire_chain::call::{ToolArgs, ToolCall};

/// An answer's content as ours.
pub(super) struct Turn {
    /// The text parts, joined (`None`: no text part).
    text: Option<String>,
    calls: Vec<GenaiCall>,
    thoughts: Vec<Thought>,
}

/// `genai`'s answer content as ours: its text, its tool calls, and the
/// thoughts that must go back with it. `genai` puts a signature just before
/// the part it signs: before a `ReasoningContent` it is an Anthropic
/// thinking block; a signature a tool call also carries (Gemini's own, or
/// Anthropic's copy of its thinking signatures on the first call) belongs
/// to that call; any other signs the text (Gemini).
pub(super) fn our_turn(content: MessageContent, provider: Provider) -> Turn {
    let mut parts = content.into_parts().into_iter().peekable();
    let mut texts = Vec::new();
    let mut calls: Vec<GenaiCall> = Vec::new();
    let mut thoughts = Vec::new();
    let mut signed_thinking = Vec::new();
    let mut free_signatures = Vec::new();
    while let Some(part) = parts.next() {
        match part {
            ContentPart::ThoughtSignature(signature) => {
                match parts.next_if(|p| matches!(p, ContentPart::ReasoningContent(_))) {
                    Some(ContentPart::ReasoningContent(text)) => {
                        signed_thinking.push(signature.clone());
                        thoughts.push(Thought::Thinking { text, signature });
                    }
                    _ => free_signatures.push(signature),
                }
            }
            ContentPart::Custom(custom) if provider == Provider::Anthropic => {
                let kind = custom.data.get("type").and_then(Value::as_str);
                if matches!(kind, Some("thinking" | "redacted_thinking")) {
                    thoughts.push(Thought::Opaque { block: custom.data });
                }
            }
            ContentPart::Text(text) => texts.push(ContentPart::Text(text)),
            ContentPart::ToolCall(call) => calls.push(call),
            _ => {}
        }
    }
    let own = |call: &GenaiCall| {
        call.thought_signatures
            .as_ref()
            .and_then(|s| s.first())
            .filter(|s| !signed_thinking.contains(s))
            .cloned()
    };
    let on_calls: Vec<Option<String>> = calls.iter().map(own).collect();
    for signature in free_signatures {
        if !on_calls.iter().flatten().any(|s| *s == signature)
            && !signed_thinking.contains(&signature)
        {
            thoughts.push(Thought::signature(signature, None));
        }
    }
    for (at, signature) in on_calls.into_iter().enumerate() {
        if let Some(signature) = signature {
            thoughts.push(Thought::signature(signature, Some(at)));
        }
    }
    Turn {
        text: MessageContent::from_parts(texts).into_joined_texts(),
        calls,
        thoughts,
    }
}

fn our_call(call: GenaiCall) -> ToolCall {
    let arguments = match call.fn_arguments {
        Value::Object(map) => ToolArgs::from_map(map),
        Value::String(text) => ToolArgs::from_json(text),
        Value::Null => ToolArgs::empty(),
        // Not an object: kept as text, reported as invalid arguments when read.
        other => ToolArgs::from_json(other.to_string()),
    };
    ToolCall::new(call.call_id, call.fn_name, arguments)
}

fn our_usage(usage: genai::chat::Usage) -> Usage {
    let count = |n: Option<i32>| n.and_then(|n| u64::try_from(n).ok()).unwrap_or(0);
    Usage {
        input_tokens: count(usage.prompt_tokens),
        output_tokens: count(usage.completion_tokens),
    }
}

pub(super) fn our_response(response: ChatResponse, provider: Provider) -> ModelResponse {
    let usage = our_usage(response.usage);
    let turn = our_turn(response.content, provider);
    ModelResponse {
        text: turn.text.unwrap_or_default(),
        tool_calls: turn.calls.into_iter().map(our_call).collect(),
        usage,
        thoughts: turn.thoughts,
    }
}

/// Tool-call chunks without a captured end: a call may come in several
/// chunks with the same id, the last one complete.
fn last_of_each_call(chunks: Vec<GenaiCall>) -> Vec<GenaiCall> {
    let mut calls: Vec<GenaiCall> = Vec::new();
    for chunk in chunks {
        match calls.iter_mut().find(|c| c.call_id == chunk.call_id) {
            Some(call) => *call = chunk,
            None => calls.push(chunk),
        }
    }
    calls
}

/// A streamed answer, collected as the plain call returns it: `on_text`
/// hears each text delta as it arrives.
pub(super) async fn streamed(
    mut stream: genai::chat::ChatStream,
    on_text: &(dyn Fn(&str) + Send + Sync),
    provider: Provider,
    timeout: std::time::Duration,
) -> Result<ModelResponse, ModelError> {
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut thoughts = Vec::new();
    let mut end = None;
    while let Some(event) = stream.next().await {
        match event.map_err(|e| error(e, timeout))? {
            ChatStreamEvent::Chunk(chunk) => {
                on_text(&chunk.content);
                text.push_str(&chunk.content);
            }
            ChatStreamEvent::ToolCallChunk(chunk) => calls.push(chunk.tool_call),
            ChatStreamEvent::End(e) => end = Some(e),
            _ => {}
        }
    }
    // A stream cut short (a connection closed midway) is a transport
    // error: asked again, as a cut chat-completions stream is.
    let Some(end) = end else {
        return Err(ModelError::Transport(
            "the stream ended before the answer was complete (no end event)".to_owned(),
        ));
    };
    // The captured content is the whole answer, each tool call once with
    // its complete arguments, with its thoughts; the chunks are the
    // fallback.
    if let Some(content) = end.captured_content {
        let turn = our_turn(content, provider);
        if !turn.calls.is_empty() {
            calls = turn.calls;
        }
        if let Some(t) = turn.text {
            text = t;
        }
        thoughts = turn.thoughts;
    } else {
        calls = last_of_each_call(calls);
    }
    Ok(ModelResponse {
        text,
        tool_calls: calls.into_iter().map(our_call).collect(),
        usage: end.captured_usage.map(our_usage).unwrap_or_default(),
        thoughts,
    })
}

#[cfg(test)]
mod tests {
    use super::super::request::their_turn;
    use super::*;
    use hookwire_chain::call::ToolArgs;

    /// Anthropic's answer as `genai` reads a non-streamed one: the thinking
    /// block as a signature before its reasoning, a redacted block as a
    /// custom part, the first call mirroring the thinking signatures.
    #[test]
    fn anthropic_thinking_is_kept_once_and_goes_back_first() {
        let call = GenaiCall {
            call_id: "toolu_1".into(),
            fn_name: "weather".into(),
            fn_arguments: serde_json::json!({"city": "Oslo"}),
            thought_signatures: Some(vec!["sig-T".into()]),
        };
        let redacted = serde_json::json!({"type": "redacted_thinking", "data": "abc"});
        let content = MessageContent::from_parts(vec![
            ContentPart::ThoughtSignature("sig-T".into()),
            ContentPart::ReasoningContent("Hmm.".into()),
            ContentPart::from_custom(redacted.clone(), None),
            ContentPart::Text("Checking.".into()),
            ContentPart::ToolCall(call),
        ]);
        let turn = our_turn(content, Provider::Anthropic);
        assert_eq!(turn.text.as_deref(), Some("Checking."));
        assert_eq!(
            turn.thoughts,
            [
                Thought::Thinking {
                    text: "Hmm.".into(),
                    signature: "sig-T".into()
                },
                Thought::Opaque {
                    block: redacted.clone()
                },
            ]
        );
        // Back to Anthropic: the blocks first; to Gemini: none of them.
        let calls = [ToolCall::new("toolu_1", "weather", ToolArgs::empty())];
        let back = their_turn("Checking.", &calls, &turn.thoughts, Provider::Anthropic);
        assert!(matches!(
            back.parts().as_slice(),
            [
                ContentPart::ThoughtSignature(s),
                ContentPart::ReasoningContent(r),
                ContentPart::Custom(c),
                ContentPart::Text(_),
                ContentPart::ToolCall(_)
            ] if s == "sig-T" && r == "Hmm." && c.data == redacted
        ));
        let back = their_turn("Checking.", &calls, &turn.thoughts, Provider::Gemini);
        assert!(matches!(
            back.parts().as_slice(),
            [ContentPart::Text(_), ContentPart::ToolCall(c)] if c.thought_signatures.is_none()
        ));
    }
}
