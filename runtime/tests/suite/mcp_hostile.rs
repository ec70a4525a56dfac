//! MCP servers that misbehave on purpose (a hand-written JSON-RPC server,
//! `fixtures/mcp/hostile_server.py`): malformed tools in `tools/list`,
//! answers over the 16 MiB cap for one message, and 200 KB of hostile
//! stderr from a server that dies.
#![cfg(feature = "mcp")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::mcp_support;

use std::time::Duration;

use hookwire::mcp::{McpConfig, McpOptions, McpServers, ServerSpec, ServerStatus};
use hookwire::{CallScope, ToolArgs, ToolCall, ToolResult, ToolSet};
use serde_json::{Value, json};

const MIB: u64 = 1024 * 1024;

async fn hostile(call_timeout: Duration) -> McpServers {
    let spec = ServerSpec::stdio(mcp_support::python())
        .args([mcp_support::fixture("hostile_server.py")
            .to_string_lossy()
            .into_owned()])
        .call_timeout(call_timeout);
    let config = McpConfig::new().with_server("hostile", spec).unwrap();
    McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap()
}

async fn call(tools: &impl ToolSet, name: &str, args: Value) -> ToolResult {
    let call = ToolCall::new("c1", name, ToolArgs::from_value(args).unwrap());
    tools.call(&CallScope::new("tester"), call).await
}

#[tokio::test]
async fn malformed_tools_are_left_out_and_the_server_serves_the_rest() {
    let servers = hostile(Duration::from_secs(60)).await;
    assert!(
        matches!(
            servers.status("hostile"),
            Some(ServerStatus::Connected { tools: 3, .. })
        ),
        "{:?}",
        servers.status("hostile")
    );
    let tools = servers.tool_set();
    let names: Vec<_> = tools.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["hostile__echo", "hostile__die", "hostile__huge"]);
    let echo = call(&tools, "hostile__echo", json!({"text": "still here"})).await;
    assert_eq!(echo.text_content(), "still here");
    servers.shutdown().await;
}

/// An answer over the cap fails its call at once with what happened (the
/// call timeout is a minute: waiting for it would give "timed out"), and the
/// connection serves the next call.
#[tokio::test]
async fn an_answer_over_the_size_cap_fails_its_call_saying_so() {
    let servers = hostile(Duration::from_secs(60)).await;
    let tools = servers.tool_set();
    for layout in ["first", "last"] {
        let result = call(
            &tools,
            "hostile__huge",
            json!({"bytes": 17 * MIB, "layout": layout}),
        )
        .await;
        assert!(result.is_error, "{layout}");
        let text = result.text_content();
        assert!(
            text.starts_with(
                "tool `hostile__huge` failed: MCP server `hostile`: its answer was 17825"
            ) && text.ends_with(
                "bytes long, over the limit of 16777216 bytes for one message, so it was dropped"
            ),
            "{layout}: {text}"
        );
        let echo = call(&tools, "hostile__echo", json!({"text": layout})).await;
        assert_eq!(echo.text_content(), layout);
    }
    // Under the cap, a large answer arrives whole.
    let big = call(&tools, "hostile__huge", json!({"bytes": 15 * MIB})).await;
    assert!(!big.is_error);
    assert_eq!(big.text_content().len() as u64, 15 * MIB);
    servers.shutdown().await;
}

/// When the dropped answer's id cannot be read, the call can only time out,
/// and its message says why.
#[tokio::test]
async fn an_oversized_answer_without_a_readable_id_is_named_in_the_timeout() {
    let servers = hostile(Duration::from_secs(2)).await;
    let tools = servers.tool_set();
    let result = call(
        &tools,
        "hostile__huge",
        json!({"bytes": 17 * MIB, "layout": "middle"}),
    )
    .await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "MCP tool `huge` on server `hostile` (meanwhile it sent a message over the size limit \
         whose id could not be read, and it was dropped: probably this call's answer) timed out \
         after 2000 ms"
    );
    servers.shutdown().await;
}

/// A server that writes 200 KB of stderr with terminal escapes and bidi
/// controls, and dies: what the model reads of it is its stderr's end,
/// bounded, marked as cut, with every control character escaped.
#[tokio::test]
async fn a_dying_servers_stderr_reaches_the_model_bounded_and_escaped() {
    let dir = std::env::temp_dir().join(format!("hookwire-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("dead");
    let _ = std::fs::remove_file(&marker);
    let spec = ServerSpec::stdio(mcp_support::python())
        .args([mcp_support::fixture("hostile_server.py")
            .to_string_lossy()
            .into_owned()])
        .env("HOSTILE_MARKER", marker.to_string_lossy().into_owned());
    let config = McpConfig::new().with_server("hostile", spec).unwrap();
    let servers = McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap();
    let tools = servers.tool_set();
    let died = call(&tools, "hostile__die", json!({})).await;
    assert!(died.is_error, "{}", died.text_content());
    // Started again, it dies at once, leaving its stderr.
    let result = call(&tools, "hostile__echo", json!({"text": "x"})).await;
    assert!(result.is_error);
    let text = result.text_content();
    assert!(
        text.contains("its last stderr lines: …[truncated "),
        "{text}"
    );
    assert!(
        text.ends_with("last words \\u{1b}]0;owned\\u{7} \\u{202e}evil"),
        "{}",
        &text[text.len().saturating_sub(200)..]
    );
    assert!(text.len() < 4 * 1024 + 1024, "{} bytes", text.len());
    assert!(
        !text
            .chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t')
                || ('\u{202a}'..='\u{202e}').contains(&c)),
        "a raw control character reached the model"
    );
    let Some(ServerStatus::Unavailable(why)) = servers.status("hostile") else {
        panic!("{:?}", servers.status("hostile"));
    };
    assert!(
        why.len() < 4 * 1024 + 1024 && !why.contains('\u{1b}'),
        "{why}"
    );
    servers.shutdown().await;
    std::fs::remove_dir_all(&dir).ok();
}
