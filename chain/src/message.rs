//! The messages of a conversation, as the loop keeps them and models read
//! them. They live with the chain because a tool's availability and
//! instruction read the history ([`StepView`](crate::StepView)); the
//! model layer and the loop use them from here.

use serde::{Deserialize, Serialize};

use crate::call::{CallStr, ToolCall, ToolResult};

/// One message of a conversation.
///
/// The JSON form is tagged by `role`:
///
/// ```
/// # use hookwire::model::Message;
/// let m = Message::user("hello");
/// assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"role":"user","content":"hello"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
// Not `non_exhaustive`: every model turns every kind of message into its
// wire format, so a new kind must be a compile error in each of them.
pub enum Message {
    /// What the user said.
    User {
        /// The text.
        content: String,
    },
    /// What the model said: text, tool calls, or both.
    Assistant {
        /// The text (empty when the turn is only tool calls).
        #[serde(default)]
        content: String,
        /// The tool calls, in the order the model made them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// What the provider asked to get back unchanged with this turn
        /// (thought signatures, signed thinking blocks); see [`Thought`].
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        thoughts: Vec<Thought>,
    },
    /// The result of one tool call, answering the call with the same id.
    Tool {
        /// The id of the call this answers (shared with the call's).
        tool_call_id: CallStr,
        /// The tool's name (shared with the call's).
        name: CallStr,
        /// The result the model reads.
        result: ToolResult,
    },
}

/// A copy of `items`; an empty one is made without calling `Vec::clone`
/// (which is not inlined: about 30 instructions for nothing, on every
/// answer of the agent loop).
pub fn clone_or_empty<T: Clone>(items: &[T]) -> Vec<T> {
    if items.is_empty() {
        Vec::new()
    } else {
        items.to_vec()
    }
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::Assistant {
            content: content.into(),
            tool_calls: Vec::new(),
            thoughts: Vec::new(),
        }
    }

    /// An assistant message with tool calls.
    pub fn assistant_calls(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self::Assistant {
            content: content.into(),
            tool_calls,
            thoughts: Vec::new(),
        }
    }

    /// A tool result message.
    pub fn tool(
        tool_call_id: impl Into<CallStr>,
        name: impl Into<CallStr>,
        result: ToolResult,
    ) -> Self {
        Self::Tool {
            tool_call_id: tool_call_id.into(),
            name: name.into(),
            result,
        }
    }

    /// The role: `user`, `assistant` or `tool`.
    #[inline]
    pub fn role(&self) -> &'static str {
        match self {
            Self::User { .. } => "user",
            Self::Assistant { .. } => "assistant",
            Self::Tool { .. } => "tool",
        }
    }

    /// The tool result, if this is a tool message: for reading what the
    /// model was told, as in
    /// `history.iter().filter_map(Message::tool_result)`.
    #[inline]
    pub fn tool_result(&self) -> Option<&ToolResult> {
        match self {
            Self::Tool { result, .. } => Some(result),
            Self::User { .. } | Self::Assistant { .. } => None,
        }
    }

    /// The text a text-only reader sees: the content, or a tool result's
    /// text blocks.
    #[inline]
    pub fn text(&self) -> String {
        match self {
            Self::User { content } | Self::Assistant { content, .. } => content.clone(),
            Self::Tool { result, .. } => result.text_content(),
        }
    }
}

/// Provider data that goes back with the assistant turn it came with, as
/// it came: the providers check it, and reject a conversation that lost it.
///
/// A model that needs none leaves `ModelResponse::thoughts` (`hookwire::model`) empty. The
/// native providers (`ProviderModel`) fill it with:
/// * Gemini's thought signatures (`thoughtSignature`, on a function-call
///   or text part of a thinking model's answer; Gemini 3 refuses function
///   calling without them) as [`Thought::Signature`];
/// * Anthropic's thinking blocks (`thinking` with its `signature`) as
///   [`Thought::Thinking`], and `redacted_thinking` as [`Thought::Opaque`].
///
/// They are kept in the history ([`Message::Assistant`]) and serialised
/// with it, so a saved and resumed run sends them back too.
///
/// ```
/// # use hookwire::model::{Message, Thought};
/// let thought = Thought::signature("c2lnLWE=", Some(0));
/// let json = serde_json::to_value(&thought).unwrap();
/// assert_eq!(json, serde_json::json!({"kind": "signature", "signature": "c2lnLWE=", "call": 0}));
/// assert_eq!(serde_json::from_value::<Thought>(json).unwrap(), thought);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Thought {
    /// An opaque signature on one part of the answer: on the tool call at
    /// index `call` of the turn's calls, or on its text when `None`
    /// (Gemini's `thoughtSignature`).
    Signature {
        /// The signature, as the provider sent it.
        signature: String,
        /// The index of the tool call it rode on, in the turn's calls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<usize>,
    },
    /// A reasoning block with the provider's signature over it
    /// (Anthropic's `thinking`).
    Thinking {
        /// The reasoning text.
        text: String,
        /// The signature.
        signature: String,
    },
    /// A block that goes back exactly as it came (Anthropic's
    /// `redacted_thinking`).
    Opaque {
        /// The block.
        block: serde_json::Value,
    },
}

impl Thought {
    /// A signature on the tool call at index `call`, or on the text.
    pub fn signature(signature: impl Into<String>, call: Option<usize>) -> Self {
        Self::Signature {
            signature: signature.into(),
            call,
        }
    }
}
