//! `tools/list` that skips a malformed tool instead of losing the server.
//!
//! rmcp reads a `tools/list` answer as one typed value: a single tool with,
//! say, a number for a name makes the whole answer unreadable, and the
//! server would be reported unavailable although its other tools are fine.
//! Here the answer is read tool by tool: a tool that does not read is left
//! out with a warning naming the server, its position and why.

use rmcp::model::{
    ClientRequest, CustomResult, ListToolsRequest, PaginatedRequestParams, ServerResult, Tool,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::Value;

/// More pages than any real server sends: a server that keeps answering
/// with a next cursor is stopped here rather than listed forever.
const MAX_PAGES: usize = 1_000;

/// Lists every tool of the server behind `peer`, following pagination.
/// `server` names it in warnings.
pub(crate) async fn list_tools(
    peer: &Peer<RoleClient>,
    server: &str,
) -> Result<Vec<Tool>, ServiceError> {
    let mut tools = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor.take());
        let request = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params));
        let next = match peer.send_request(request).await? {
            ServerResult::ListToolsResult(page) => {
                tools.extend(page.tools);
                page.next_cursor
            }
            // A page with a tool that does not read as a tool: rmcp's
            // untagged result falls through to the raw value.
            ServerResult::CustomResult(CustomResult(raw)) => {
                read_page_leniently(raw, server, tools.len(), &mut tools)?
            }
            _ => return Err(ServiceError::UnexpectedResponse),
        };
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(tools),
        }
    }
    Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
        format!("tools/list gave more than {MAX_PAGES} pages"),
        None,
    )))
}

/// Reads the tools of one raw `tools/list` page, skipping those that do not
/// read, into `tools`; returns the next cursor. `offset` is the number of
/// tools listed before this page (for the position in warnings).
fn read_page_leniently(
    raw: Value,
    server: &str,
    offset: usize,
    tools: &mut Vec<Tool>,
) -> Result<Option<String>, ServiceError> {
    let Value::Object(mut page) = raw else {
        return Err(ServiceError::UnexpectedResponse);
    };
    let Some(Value::Array(listed)) = page.remove("tools") else {
        return Err(ServiceError::UnexpectedResponse);
    };
    for (i, tool) in listed.into_iter().enumerate() {
        let name = tool
            .get("name")
            .map(|n| n.to_string())
            .unwrap_or_else(|| "(no name)".to_owned());
        match serde_json::from_value::<Tool>(tool) {
            Ok(tool) => tools.push(tool),
            Err(e) => tracing::warn!(
                target: "hookwire::mcp",
                server,
                position = offset + i,
                tool = %name,
                error = %e,
                "MCP server listed a malformed tool; it is left out"
            ),
        }
    }
    match page.remove("nextCursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(cursor)) => Ok(Some(cursor)),
        Some(_) => Err(ServiceError::UnexpectedResponse),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_malformed_tool_is_left_out_and_the_others_kept() {
        let raw = json!({
            "tools": [
                {"name": "good", "inputSchema": {"type": "object"}},
                {"name": 7, "inputSchema": {"type": "object"}},
                {"name": "no_schema"},
                {"name": "also_good", "inputSchema": {"type": "object"}}
            ],
            "nextCursor": "p2"
        });
        let mut tools = Vec::new();
        let next = read_page_leniently(raw, "s", 0, &mut tools).unwrap();
        let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, ["good", "also_good"]);
        assert_eq!(next.as_deref(), Some("p2"));
    }

    #[test]
    fn a_page_without_a_tool_array_is_an_error() {
        let mut tools = Vec::new();
        for raw in [json!({"tools": 3}), json!([1]), json!({"items": []})] {
            assert!(read_page_leniently(raw, "s", 0, &mut tools).is_err());
        }
        assert!(tools.is_empty());
    }
}
