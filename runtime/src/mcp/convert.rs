//! Conversions between rmcp's wire types and hookwire's.

use std::sync::Arc;

use serde_json::{Map, Value};

use hookwire_chain::call::{Content, EmbeddedResource, ToolResult};
use hookwire_chain::tool::ToolDefinition;

/// Converts an MCP `CallToolResult` into what the model reads.
///
/// Text, image and embedded-resource blocks keep their shape; blocks hookwire
/// has no variant for (audio, resource links, anything newer) become a text
/// block that says what they were, so nothing is dropped silently.
/// `isError` and `structuredContent` are kept.
pub fn tool_result_from_mcp(result: &rmcp::model::CallToolResult) -> ToolResult {
    let content = result
        .content
        .iter()
        .map(|block| match serde_json::to_value(block) {
            Ok(value) => content_from_value(value),
            Err(e) => Content::text(format!("[unreadable content block: {e}]")),
        })
        .collect();
    ToolResult {
        content,
        is_error: result.is_error.unwrap_or(false),
        structured_content: result.structured_content.clone().map(Box::new),
    }
}

fn string(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn content_from_value(value: Value) -> Content {
    let Value::Object(map) = value else {
        return Content::text(value.to_string());
    };
    match map.get("type").and_then(Value::as_str) {
        Some("text") => Content::text(string(&map, "text").unwrap_or_default()),
        Some("image") => Content::image(
            string(&map, "data").unwrap_or_default(),
            string(&map, "mimeType").unwrap_or_default(),
        ),
        Some("resource") => {
            let resource = map.get("resource").and_then(Value::as_object);
            match resource {
                Some(r) => Content::Resource {
                    resource: Box::new(EmbeddedResource {
                        uri: string(r, "uri").unwrap_or_default(),
                        mime_type: string(r, "mimeType"),
                        text: string(r, "text"),
                        blob: string(r, "blob"),
                    }),
                },
                None => Content::text(Value::Object(map).to_string()),
            }
        }
        Some("resource_link") => Content::text(format!(
            "[resource link: {}{}]",
            string(&map, "uri").unwrap_or_default(),
            string(&map, "name")
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        )),
        Some("audio") => Content::text(format!(
            "[audio content, {}]",
            string(&map, "mimeType").unwrap_or_else(|| "unknown type".to_owned())
        )),
        _ => Content::text(Value::Object(map).to_string()),
    }
}

/// Converts a hookwire result into an MCP `CallToolResult` (the JSON shapes
/// are the same).
pub fn tool_result_to_mcp(result: &ToolResult) -> rmcp::model::CallToolResult {
    let converted = serde_json::to_value(result)
        .ok()
        .and_then(|v| serde_json::from_value::<rmcp::model::CallToolResult>(v).ok());
    match converted {
        Some(r) => r,
        // Every ToolResult serializes as a CallToolResult; keep the text if
        // a future content kind ever does not.
        None => {
            let mut r =
                rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(
                    result.text_content(),
                )]);
            r.is_error = Some(result.is_error);
            r
        }
    }
}

/// A hookwire tool definition as an MCP tool.
pub fn tool_to_mcp(definition: &ToolDefinition) -> rmcp::model::Tool {
    let schema = match &definition.input_schema {
        Value::Object(map) => map.clone(),
        _ => {
            let mut map = Map::new();
            map.insert("type".into(), Value::String("object".into()));
            map
        }
    };
    rmcp::model::Tool::new(
        definition.name.clone(),
        definition.description.clone(),
        Arc::new(schema),
    )
}

/// An MCP tool's annotations as its metadata, for `meta:` matchers:
/// `readOnlyHint` as `read_only`, `destructiveHint` as `destructive`,
/// `idempotentHint` as `idempotent`, `openWorldHint` as `open_world`, each
/// `"true"` or `"false"` (a hint the server does not give is absent).
pub fn meta_from_mcp(tool: &rmcp::model::Tool) -> crate::ToolMeta {
    let Some(a) = &tool.annotations else {
        return crate::ToolMeta::EMPTY;
    };
    // The keys are the spec's (`MCP_HINT_KEYS`, whose values a matcher
    // must write `true` or `false`), in its order.
    let hints = [
        a.read_only_hint,
        a.destructive_hint,
        a.idempotent_hint,
        a.open_world_hint,
    ];
    crate::ToolMeta::from_pairs(
        hookwire_spec::MCP_HINT_KEYS
            .iter()
            .zip(hints)
            .filter_map(|((key, _), hint)| Some((*key, if hint? { "true" } else { "false" }))),
    )
}

/// An MCP tool as a hookwire definition, under the name `exposed`.
pub fn tool_from_mcp(tool: &rmcp::model::Tool, exposed: String) -> ToolDefinition {
    ToolDefinition {
        name: exposed,
        description: hookwire_spec::model_description(
            tool.description.as_deref(),
            tool.title.as_deref(),
        )
        .to_owned(),
        input_schema: Value::Object((*tool.input_schema).clone()),
        strict: false,
    }
}

/// An MCP tool as a lock pins it: the description the model reads, the
/// input schema and the annotations (what `cardgen mcp lock` writes and
/// the runtime compares with).
pub fn locked_tool(tool: &rmcp::model::Tool) -> hookwire_spec::LockedTool {
    hookwire_spec::LockedTool::new(
        hookwire_spec::model_description(tool.description.as_deref(), tool.title.as_deref()),
        Value::Object((*tool.input_schema).clone()),
        tool.annotations
            .as_ref()
            .and_then(|a| serde_json::to_value(a).ok()),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_block_kind_converts() {
        let wire = json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "body"}},
                {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///b", "name": "b"}
            ],
            "isError": true,
            "structuredContent": {"k": 1}
        });
        let mcp: rmcp::model::CallToolResult = serde_json::from_value(wire).unwrap();
        let ours = tool_result_from_mcp(&mcp);
        assert!(ours.is_error);
        assert_eq!(ours.structured_content.as_deref(), Some(&json!({"k": 1})));
        assert_eq!(
            serde_json::to_value(&ours.content).unwrap(),
            json!([
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "text": "body"}},
                {"type": "text", "text": "[audio content, audio/wav]"},
                {"type": "text", "text": "[resource link: file:///b (b)]"}
            ])
        );
        let back = tool_result_to_mcp(&ours);
        assert_eq!(back.is_error, Some(true));
        assert_eq!(back.content.len(), 5);
        assert_eq!(back.structured_content, Some(json!({"k": 1})));
    }
}
