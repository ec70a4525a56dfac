//! The `mcp_serve` example (a hookwire tool set served over MCP stdio),
//! called by real MCP clients: rmcp's, hookwire's own MCP tool source, and
//! the official Python `mcp` client installed by `.ci/run`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../runtime/tests/mcp_support/mod.rs"]
mod mcp_support;

use hookwire::mcp::rmcp::ServiceExt;
use hookwire::mcp::rmcp::model::CallToolRequestParams;
use hookwire::mcp::rmcp::transport::TokioChildProcess;
use hookwire::mcp::{McpConfig, McpOptions, McpServers, ServerSpec};
use hookwire::{CallScope, ToolArgs, ToolCall, ToolSet};
use serde_json::{Map, Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_mcp_serve");

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn text(result: &hookwire::mcp::rmcp::model::CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn rmcp_client_calls_each_tool_through_its_chain() {
    let transport = TokioChildProcess::new(tokio::process::Command::new(SERVER)).unwrap();
    let client = ().serve(transport).await.unwrap();
    let info = client.peer().peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("calculator")
    );

    let tools = client.peer().list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["add_one", "shout", "delete_everything"]);
    assert_eq!(tools[0].description.as_deref(), Some("Adds one to x."));
    assert_eq!(tools[0].input_schema["required"], json!(["x"]));

    let call = |name: &'static str, a: Value| {
        let peer = client.peer().clone();
        async move {
            peer.call_tool(CallToolRequestParams::new(name).with_arguments(args(a)))
                .await
                .unwrap()
        }
    };
    // The clamp hook rewrote x = 50 to 10 before the tool ran.
    let clamped = call("add_one", json!({"x": 50})).await;
    assert_eq!(text(&clamped), "11");
    assert_eq!(clamped.is_error, Some(false));
    assert_eq!(text(&call("add_one", json!({"x": 2})).await), "3");
    // The post hook tagged the result.
    assert_eq!(
        text(&call("shout", json!({"text": "hi"})).await),
        "HI [audited]"
    );
    // The pre hook denied the call: an error result, the tool never ran.
    let denied = call("delete_everything", json!({})).await;
    assert_eq!(denied.is_error, Some(true));
    assert!(
        text(&denied).starts_with("tool call denied by `")
            && text(&denied).ends_with("`delete_everything` is not allowed here"),
        "{}",
        text(&denied)
    );
    // Bad arguments and unknown tools are error results too.
    let bad = call("add_one", json!({"x": "fifty"})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(
        text(&bad).starts_with("invalid arguments for tool `add_one` at `x`"),
        "{}",
        text(&bad)
    );
    let unknown = call("nope", json!({})).await;
    assert_eq!(unknown.is_error, Some(true));
    assert_eq!(text(&unknown), "unknown tool `nope`");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn hookwire_consumes_what_hookwire_serves() {
    let config = McpConfig::new()
        .with_server("calc", ServerSpec::stdio(SERVER))
        .unwrap();
    let servers = McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap();
    let tools = servers.tool_set();
    let names: Vec<_> = tools.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        ["calc__add_one", "calc__shout", "calc__delete_everything"]
    );
    let call = ToolCall::new("c1", "calc__add_one", ToolArgs::from_json(r#"{"x": 99}"#));
    let result = tools.call(&CallScope::new("client"), call).await;
    assert_eq!(result.text_content(), "11");
    servers.shutdown().await;
}

#[tokio::test]
async fn python_mcp_client_calls_the_served_tools() {
    let python = mcp_support::python();
    let script = mcp_support::fixture("call_hookwire_server.py");
    let output = tokio::time::timeout(
        std::time::Duration::from_secs(120),
        tokio::process::Command::new(python)
            .arg(&script)
            .arg(SERVER)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the Python client did not finish")
    .unwrap();
    assert!(
        output.status.success(),
        "python client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let got: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
    assert_eq!(
        got["tools"],
        json!(["add_one", "shout", "delete_everything"])
    );
    assert_eq!(
        got["schemas"]["add_one"]["properties"]["x"]["type"],
        "integer"
    );
    assert_eq!(got["add_one"], json!({"text": "11", "isError": false}));
    assert_eq!(got["add_one_small"], json!({"text": "3", "isError": false}));
    assert_eq!(
        got["shout"],
        json!({"text": "HELLO FROM PYTHON [audited]", "isError": false})
    );
    assert_eq!(got["delete_everything"]["isError"], true);
    assert!(
        got["delete_everything"]["text"]
            .as_str()
            .unwrap()
            .ends_with("`delete_everything` is not allowed here"),
        "{got}"
    );
    assert_eq!(got["bad_args"]["isError"], true);
    assert_eq!(
        got["unknown"],
        json!({"text": "unknown tool `no_such_tool`", "isError": true})
    );
}
