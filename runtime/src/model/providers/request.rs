//! Our request as `genai`'s: the messages (with each provider's
//! thoughts going back), the system instruction, the tools.

use genai::chat::{
    ChatMessage, ChatRequest, ContentPart, MessageContent, Tool, ToolCall as GenaiCall,
    ToolResponse,
};
use serde_json::Value;

use super::Provider;
use crate::model::{Message, ModelRequest, Thought};
use hookwire_chain::call::ToolCall;

/// Our request as `genai`'s: the system instruction, the messages (an
/// assistant turn's thoughts, text and tool calls in one message, each tool
/// result answering its call's id, with the tool's name for Gemini) and the
/// tools with their JSON Schemas.
pub(super) fn chat_request(request: &ModelRequest<'_>, provider: Provider) -> ChatRequest {
    let mut messages = Vec::with_capacity(request.messages.len());
    for message in request.messages {
        messages.push(match message {
            Message::User { content } => ChatMessage::user(content.as_str()),
            Message::Assistant {
                content,
                tool_calls,
                thoughts,
            } => ChatMessage::assistant(their_turn(content, tool_calls, thoughts, provider)),
            Message::Tool {
                tool_call_id,
                name,
                result,
            } => ChatMessage::from(
                ToolResponse::new(&**tool_call_id, result.text_content()).with_fn_name(&**name),
            ),
        });
    }
    let mut chat = ChatRequest::new(messages);
    if !request.system.is_empty() {
        chat = chat.with_system(request.system);
    }
    if !request.tools.is_empty() {
        chat = chat.with_tools(request.tools.iter().map(|t| {
            let tool = Tool::new(t.name.as_str())
                .with_description(t.description.as_str())
                .with_schema(t.input_schema.clone());
            if t.strict {
                tool.with_strict(true)
            } else {
                tool
            }
        }));
    }
    chat
}

/// An assistant turn as `genai`'s content: the thoughts `provider` reads
/// first (thinking blocks, a signature on the text), then the text, then
/// the tool calls, each with its own signature.
pub(super) fn their_turn(
    content: &str,
    tool_calls: &[ToolCall],
    thoughts: &[Thought],
    provider: Provider,
) -> MessageContent {
    let mut parts = Vec::with_capacity(tool_calls.len() + thoughts.len() + 1);
    let mut calls: Vec<GenaiCall> = tool_calls.iter().map(their_call).collect();
    for thought in thoughts {
        match (provider, thought) {
            (Provider::Gemini, Thought::Signature { signature, call }) => match call {
                None => parts.push(ContentPart::ThoughtSignature(signature.clone())),
                Some(at) => {
                    if let Some(call) = calls.get_mut(*at) {
                        call.thought_signatures = Some(vec![signature.clone()]);
                    }
                }
            },
            (Provider::Anthropic, Thought::Thinking { text, signature }) => {
                parts.push(ContentPart::ThoughtSignature(signature.clone()));
                parts.push(ContentPart::ReasoningContent(text.clone()));
            }
            (Provider::Anthropic, Thought::Opaque { block }) => {
                parts.push(ContentPart::from_custom(block.clone(), None));
            }
            // Another provider's thoughts mean nothing here.
            _ => {}
        }
    }
    if !content.is_empty() {
        parts.push(ContentPart::Text(content.to_owned()));
    }
    parts.extend(calls.into_iter().map(ContentPart::ToolCall));
    MessageContent::from_parts(parts)
}

fn their_call(call: &ToolCall) -> GenaiCall {
    // Arguments that never parsed go back as the text the model sent.
    let arguments = call.arguments.to_value().unwrap_or_else(|_| {
        serde_json::to_value(&call.arguments).unwrap_or(Value::Object(Default::default()))
    });
    GenaiCall {
        call_id: call.id.to_string(),
        fn_name: call.name.to_string(),
        fn_arguments: arguments,
        thought_signatures: None,
    }
}
