//! What a tool call returns: content blocks, serialized as MCP's.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use smallvec::SmallVec;

use crate::error::ToolError;

/// One block of a tool result, serialized exactly as MCP's content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded (boxed, so that the common text block and
    /// every result stay small; it serializes flat, as MCP's image block).
    Image {
        /// The image.
        #[serde(flatten)]
        image: Box<ImageContent>,
    },
    /// An embedded resource (boxed, so that the common text block and every
    /// result stay small).
    Resource {
        /// The resource.
        resource: Box<EmbeddedResource>,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image {
            image: Box::new(ImageContent {
                data: data.into(),
                mime_type: mime_type.into(),
            }),
        }
    }

    /// The text of a text block.
    #[inline]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// An image block's data (MCP's `ImageContent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageContent {
    /// Base64 data.
    pub data: String,
    /// The MIME type, for example `image/png`.
    #[serde(rename = "mimeType")]
    pub mime_type: String,
}

/// An embedded resource (MCP's `TextResourceContents` or `BlobResourceContents`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64 binary contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// The content blocks of a result. One block is stored inline, so the
/// common single-text result costs no extra allocation.
pub type Contents = SmallVec<[Content; 1]>;

/// The result of a tool call: what the model reads. It serializes exactly as
/// MCP's `CallToolResult` (`content`, `isError`, `structuredContent`).
///
/// ```
/// let r = hookwire::ToolResult::text("42");
/// assert_eq!(
///     serde_json::to_string(&r).unwrap(),
///     r#"{"content":[{"type":"text","text":"42"}],"isError":false}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The content blocks.
    pub content: Contents,
    /// Whether the result reports an error to the model.
    #[serde(rename = "isError", default)]
    pub is_error: bool,
    /// Structured output, if the tool has any (boxed: a JSON value is large,
    /// and a result travels through every layer of a chain).
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Box<Value>>,
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: smallvec::smallvec![Content::text(text)],
            is_error: false,
            structured_content: None,
        }
    }

    /// An error result with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(text)
        }
    }

    /// A successful result holding `value` as JSON text and as structured
    /// content.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Self, ToolError> {
        let structured = serde_json::to_value(value).map_err(ToolError::serialize)?;
        let text = serde_json::to_string(&structured).map_err(ToolError::serialize)?;
        Ok(Self {
            structured_content: Some(Box::new(structured)),
            ..Self::text(text)
        })
    }

    /// A successful result from content blocks.
    pub fn from_content(content: impl IntoIterator<Item = Content>) -> Self {
        Self {
            content: content.into_iter().collect(),
            is_error: false,
            structured_content: None,
        }
    }

    /// All text blocks joined with newlines: what a text-only model reads.
    #[inline]
    pub fn text_content(&self) -> String {
        join_text(&self.content)
    }

    /// All text blocks joined with newlines, as [`text_content`](Self::text_content),
    /// moved out of the result: no copy when there is one text block.
    ///
    /// ```
    /// let r = hookwire::ToolResult::text("42");
    /// assert_eq!(r.into_text_content(), "42");
    /// ```
    #[inline]
    pub fn into_text_content(self) -> String {
        match self.content.into_inner() {
            Ok([Content::Text { text }]) => text,
            Ok(content) => join_text(&content),
            Err(content) => join_text(&content),
        }
    }

    /// Appends `suffix` to the last text block (or adds a text block).
    #[inline]
    pub fn append_text(&mut self, suffix: &str) {
        match self.content.iter_mut().rev().find_map(|c| match c {
            Content::Text { text } => Some(text),
            _ => None,
        }) {
            Some(text) => text.push_str(suffix),
            None => self.content.push(Content::text(suffix)),
        }
    }
}

/// The text blocks of `content` joined with newlines.
#[inline]
fn join_text(content: &[Content]) -> String {
    let mut out = String::new();
    for (i, text) in content.iter().filter_map(Content::as_text).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn into_text_content_reads_as_text_content() {
        let mut two = ToolResult::text("a");
        two.content.push(Content::image("AA==", "image/png"));
        two.content.push(Content::text("b"));
        for r in [ToolResult::text("42"), ToolResult::from_content([]), two] {
            assert_eq!(r.text_content(), r.clone().into_text_content());
        }
        assert_eq!(ToolResult::error("no").into_text_content(), "no");
    }

    #[test]
    fn results_serialize_as_mcp_call_tool_result() {
        let mut r = ToolResult::json(&json!({"sum": 3})).unwrap();
        r.content.push(Content::image("AA==", "image/png"));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({
                "content": [
                    {"type": "text", "text": "{\"sum\":3}"},
                    {"type": "image", "data": "AA==", "mimeType": "image/png"}
                ],
                "isError": false,
                "structuredContent": {"sum": 3}
            })
        );
        let back: ToolResult = serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }
}
