//! MCP tools against real servers that no one here wrote: `mcp-server-time`
//! (PyPI) and `@modelcontextprotocol/server-everything` (npm), over stdio
//! and streamable HTTP. `.ci/run` installs them; see `mcp_support`.
#![cfg(feature = "mcp")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::mcp_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookwire::agent::McpFilter;
use hookwire::{
    CallScope, Decision, FnTool, Handler, Hook, HookError, Json, Next, Outcome, Pre, PreHook,
    Router, ToolArgs, ToolCall, ToolContext, ToolResult, ToolSet, ToolSource, chain,
};
use hookwire::{
    When, mcp::McpConfig, mcp::McpOptions, mcp::McpServers, mcp::ServerSpec, mcp::ServerStatus,
    mcp::ToolSetExt,
};
use serde_json::{Value, json};

mod failures;
mod headers;

fn time_spec() -> ServerSpec {
    ServerSpec::stdio(mcp_support::time_server()).args(["--local-timezone", "UTC"])
}

fn everything_spec() -> ServerSpec {
    ServerSpec::stdio(mcp_support::everything_server()).args(["stdio"])
}

fn filter(server: &str, globs: &[&str]) -> McpFilter {
    McpFilter {
        server: server.to_owned().into(),
        globs: globs.iter().map(|g| (*g).to_owned().into()).collect(),
    }
}

async fn call(tools: &impl ToolSet, name: &str, args: Value) -> ToolResult {
    let call = ToolCall::new("call-1", name, ToolArgs::from_value(args).unwrap());
    tools.call(&CallScope::new("tester"), call).await
}

fn names(tools: &impl ToolSet) -> Vec<String> {
    tools.definitions().into_iter().map(|d| d.name).collect()
}

fn json_text(result: &ToolResult) -> Value {
    serde_json::from_str(&result.text_content())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", result.text_content()))
}

#[tokio::test]
async fn time_server_answers_for_the_requested_time_zone() {
    let config = McpConfig::new().with_server("time", time_spec()).unwrap();
    let servers = McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap();
    let tools = servers.tool_set();
    assert_eq!(
        names(&tools),
        ["time__get_current_time", "time__convert_time"],
        "{:?}",
        servers.status("time")
    );
    let schema = &tools.definitions()[0].input_schema;
    assert_eq!(schema["required"], json!(["timezone"]));

    let tokyo = call(
        &tools,
        "time__get_current_time",
        json!({"timezone": "Asia/Tokyo"}),
    )
    .await;
    assert!(!tokyo.is_error, "{tokyo:?}");
    let body = json_text(&tokyo);
    assert_eq!(body["timezone"], "Asia/Tokyo");
    let datetime = body["datetime"].as_str().unwrap();
    assert!(datetime.ends_with("+09:00"), "{datetime}");
    assert_eq!(
        tokyo.structured_content.as_ref().unwrap()["timezone"],
        "Asia/Tokyo"
    );

    let converted = call(
        &tools,
        "time__convert_time",
        json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Kolkata"}),
    )
    .await;
    let body = json_text(&converted);
    let target = body["target"]["datetime"].as_str().unwrap();
    assert!(target.ends_with("T17:30:00+05:30"), "{target}");
    assert_eq!(body["time_difference"], "+5.5h");

    let bad = call(
        &tools,
        "time__get_current_time",
        json!({"timezone": "Mars/Olympus"}),
    )
    .await;
    assert!(bad.is_error, "{bad:?}");
    assert!(
        bad.text_content().contains("Mars/Olympus"),
        "{}",
        bad.text_content()
    );
    servers.shutdown().await;
}

#[tokio::test]
async fn everything_server_echoes_and_adds_over_stdio() {
    let config = McpConfig::new()
        .with_server("everything", everything_spec())
        .unwrap();
    let options = McpOptions::new().filters([filter(
        "everything",
        &[
            "echo",
            "get-sum",
            "get-tiny-image",
            "get-structured-content",
        ],
    )]);
    let servers = McpServers::connect(&config, options).await.unwrap();
    let tools = servers.tool_set();
    let mut listed = names(&tools);
    listed.sort();
    assert_eq!(
        listed,
        [
            "everything__echo",
            "everything__get-structured-content",
            "everything__get-sum",
            "everything__get-tiny-image"
        ]
    );

    let echo = call(
        &tools,
        "everything__echo",
        json!({"message": "hello hookwire"}),
    )
    .await;
    assert_eq!(echo.text_content(), "Echo: hello hookwire");
    assert!(!echo.is_error);

    let sum = call(&tools, "everything__get-sum", json!({"a": 2, "b": 40})).await;
    assert_eq!(sum.text_content(), "The sum of 2 and 40 is 42.");

    // Image blocks keep their shape.
    let image = call(&tools, "everything__get-tiny-image", json!({})).await;
    let blocks = serde_json::to_value(&image.content).unwrap();
    let image_block = blocks
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "image")
        .unwrap_or_else(|| panic!("no image block in {blocks}"));
    assert_eq!(image_block["mimeType"], "image/png");
    assert!(!image_block["data"].as_str().unwrap().is_empty());

    // Structured content is kept.
    let weather = call(
        &tools,
        "everything__get-structured-content",
        json!({"location": "New York"}),
    )
    .await;
    assert!(!weather.is_error, "{weather:?}");
    let structured = weather.structured_content.expect("structured content");
    assert!(structured.get("temperature").is_some(), "{structured}");

    // A tool the filter left out is unknown.
    let hidden = call(&tools, "everything__get-env", json!({})).await;
    assert!(hidden.is_error);
    assert_eq!(hidden.text_content(), "unknown tool `everything__get-env`");
    servers.shutdown().await;
}

/// Rewrites `message` to "rewritten by a hook".
struct Rewrite;
impl PreHook for Rewrite {
    async fn before(
        &self,
        _: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        args.insert("message", json!("rewritten by a hook"))?;
        Ok(Decision::Continue)
    }
}

/// Denies the call.
struct Block;
impl PreHook for Block {
    async fn before(&self, _: &mut ToolContext, _: &mut ToolArgs) -> Result<Decision, HookError> {
        Ok(Decision::Deny("sums are off today".into()))
    }
}

/// Records what each call's context says, and whether it reached the server.
#[derive(Clone, Default)]
struct Record(Arc<Mutex<Vec<String>>>);
impl Hook for Record {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let line = format!(
            "{} source={} server={:?} server_name={:?}",
            cx.tool(),
            cx.source(),
            cx.server(),
            cx.server_name()
        );
        self.0.lock().unwrap().push(line);
        next.run(cx, args).await
    }
}

/// Counts the calls that get past every hook to the MCP client.
#[derive(Clone, Default)]
struct Reached(Arc<Mutex<Vec<String>>>);
impl Hook for Reached {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        self.0.lock().unwrap().push(cx.tool().to_owned());
        next.run(cx, args).await
    }
}

#[tokio::test]
async fn hooks_rewrite_and_block_mcp_calls_with_run_time_matchers() {
    let config = McpConfig::new()
        .with_server("everything", everything_spec())
        .unwrap()
        .with_server("time", time_spec())
        .unwrap();
    let options = McpOptions::new()
        .filters([filter("everything", &["echo", "get-sum"])])
        .reserve(["add_one"]);
    let servers = McpServers::connect(&config, options).await.unwrap();
    let record = Record::default();
    let reached = Reached::default();
    let mcp = servers.tool_set_with(|call| {
        chain!(
            When::matching("source:mcp", record.clone()).unwrap(),
            When::matching("everything__echo", Pre(Rewrite)).unwrap(),
            When::matching("*__get-sum|*__delete_*", Pre(Block)).unwrap(),
            reached.clone()
            => call
        )
    });
    // Static tools and MCP tools as one set.
    let static_tools = Router::new().tool(FnTool::new(
        "add_one",
        "Adds one.",
        |a: AddOne| async move { Json(a.x + 1) },
    ));
    let tools = static_tools.join(mcp);
    let listed = names(&tools);
    assert_eq!(listed[0], "add_one");
    assert!(
        listed.contains(&"everything__echo".to_owned()),
        "{listed:?}"
    );
    assert!(
        listed.contains(&"time__get_current_time".to_owned()),
        "{listed:?}"
    );

    let echo = call(&tools, "everything__echo", json!({"message": "original"})).await;
    assert_eq!(echo.text_content(), "Echo: rewritten by a hook");

    let sum = call(&tools, "everything__get-sum", json!({"a": 1, "b": 2})).await;
    assert!(sum.is_error);
    assert_eq!(
        sum.text_content(),
        format!(
            "tool call denied by `{}`: sums are off today",
            std::any::type_name::<Block>()
        )
    );

    // The echo rewrite does not touch other tools: their matcher is
    // evaluated per call.
    let tokyo = call(
        &tools,
        "time__get_current_time",
        json!({"timezone": "Asia/Tokyo"}),
    )
    .await;
    assert_eq!(json_text(&tokyo)["timezone"], "Asia/Tokyo");

    let one = call(&tools, "add_one", json!({"x": 41})).await;
    assert_eq!(one.text_content(), "42");

    assert_eq!(
        *record.0.lock().unwrap(),
        [
            "everything__echo source=mcp server=Some(\"everything\") server_name=Some(\"everything\")",
            "everything__get-sum source=mcp server=Some(\"everything\") server_name=Some(\"everything\")",
            "time__get_current_time source=mcp server=Some(\"time\") server_name=Some(\"time\")",
        ],
        "the static tool is not an MCP tool, so `source:mcp` skips it"
    );
    // The blocked call never got past the blocking hook.
    assert_eq!(
        *reached.0.lock().unwrap(),
        ["everything__echo", "time__get_current_time"]
    );
    servers.shutdown().await;
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddOne {
    x: i64,
}

/// A free port on the loopback interface.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

#[tokio::test]
async fn everything_server_over_streamable_http() {
    let port = free_port();
    let mut server = tokio::process::Command::new(mcp_support::everything_server())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Wait (bounded) until it listens.
    let mut listening = false;
    for _ in 0..600 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            listening = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        listening,
        "mcp-server-everything streamableHttp did not listen on {port}"
    );

    let config = McpConfig::from_yaml(&format!(
        "servers:\n  web:\n    url: http://127.0.0.1:{port}/mcp\n    timeout_sec: 30\n"
    ))
    .unwrap();
    let options = McpOptions::new().filters([filter("web", &["echo", "get-sum"])]);
    let servers = McpServers::connect(&config, options).await.unwrap();
    assert!(
        matches!(
            servers.status("web"),
            Some(ServerStatus::Connected {
                pid: None,
                tools: 2
            })
        ),
        "{:?}",
        servers.status("web")
    );
    let tools = servers.tool_set();
    let echo = call(&tools, "web__echo", json!({"message": "over http"})).await;
    assert_eq!(echo.text_content(), "Echo: over http");
    let sum = call(&tools, "web__get-sum", json!({"a": 0.5, "b": 0.25})).await;
    assert_eq!(sum.text_content(), "The sum of 0.5 and 0.25 is 0.75.");
    servers.shutdown().await;
    server.kill().await.ok();
}

/// Resolves a relative `path` argument against a root folder.
struct Sandbox(String);
impl PreHook for Sandbox {
    async fn before(
        &self,
        _: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        if let Some(path) = args.get("path").and_then(Value::as_str)
            && !path.starts_with('/')
        {
            let absolute = format!("{}/{path}", self.0);
            args.insert("path", json!(absolute))?;
        }
        Ok(Decision::Continue)
    }
}

/// Denies writes.
struct ReadOnly;
impl PreHook for ReadOnly {
    async fn before(&self, _: &mut ToolContext, _: &mut ToolArgs) -> Result<Decision, HookError> {
        Ok(Decision::Deny(
            "the file system is read-only for this agent".into(),
        ))
    }
}

#[tokio::test]
async fn filesystem_server_behind_a_sandbox_and_a_read_only_hook() {
    let root = std::env::temp_dir().join(format!("hookwire-mcp-fs-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "hello from disk").unwrap();
    let root_text = root.to_string_lossy().into_owned();

    let config = McpConfig::new()
        .with_server(
            "fs",
            ServerSpec::stdio(mcp_support::filesystem_server()).args([root_text.clone()]),
        )
        .unwrap();
    let options = McpOptions::new().filters([filter(
        "fs",
        &["read_text_file", "write_file", "list_directory"],
    )]);
    let servers = McpServers::connect(&config, options).await.unwrap();
    let guarded = servers.tool_set_with(|call| {
        chain!(
            When::matching("fs__*", Pre(Sandbox(root_text.clone()))).unwrap(),
            When::matching("fs__write_*|fs__edit_*|fs__move_*", Pre(ReadOnly)).unwrap()
            => call
        )
    });

    // The sandbox hook turned the relative path into one the server accepts.
    let read = call(&guarded, "fs__read_text_file", json!({"path": "notes.txt"})).await;
    assert!(!read.is_error, "{read:?}");
    assert_eq!(read.text_content(), "hello from disk");
    let listing = call(&guarded, "fs__list_directory", json!({"path": "."})).await;
    assert!(
        listing.text_content().contains("[FILE] notes.txt"),
        "{listing:?}"
    );

    // The read-only hook denied the write: the server never wrote the file.
    let write = call(
        &guarded,
        "fs__write_file",
        json!({"path": "evil.txt", "content": "x"}),
    )
    .await;
    assert!(write.is_error);
    assert!(
        write
            .text_content()
            .ends_with("the file system is read-only for this agent"),
        "{}",
        write.text_content()
    );
    assert!(!root.join("evil.txt").exists());

    // Without the hooks the same server does write (so the denial above is
    // what kept the file away).
    let plain = servers.tool_set();
    let absolute = root.join("allowed.txt");
    let written = call(
        &plain,
        "fs__write_file",
        json!({"path": absolute.to_string_lossy(), "content": "ok"}),
    )
    .await;
    assert!(!written.is_error, "{written:?}");
    assert_eq!(std::fs::read_to_string(&absolute).unwrap(), "ok");
    servers.shutdown().await;
    std::fs::remove_dir_all(&root).ok();
}
