//! When servers fail or change: a server that does not start, one killed
//! and restarted (or not), call timeouts, bad filters and arguments, and
//! tool lists that follow `list_changed` notifications.

use super::*;

#[tokio::test]
async fn a_server_that_does_not_start_gives_error_results_and_the_rest_works() {
    let config = McpConfig::new()
        .with_server(
            "ghost",
            ServerSpec::stdio("/nonexistent/mcp-server").reconnect(false),
        )
        .unwrap()
        .with_server(
            "crashy",
            ServerSpec::stdio("sh").args(["-c", "echo 'cannot open database' >&2; exit 3"]),
        )
        .unwrap()
        .with_server(
            "offline",
            ServerSpec::http(format!("http://127.0.0.1:{}/mcp", free_port())),
        )
        .unwrap()
        .with_server("time", time_spec())
        .unwrap();
    let servers = McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap();

    let Some(ServerStatus::Unavailable(why)) = servers.status("offline") else {
        panic!("{:?}", servers.status("offline"))
    };
    assert!(
        why.starts_with("failed to start: cannot connect to `http://127.0.0.1:"),
        "{why}"
    );
    let offline = call(&servers.tool_set(), "offline__echo", json!({})).await;
    assert!(
        offline.text_content().starts_with(
            "tool `offline__echo` failed: MCP server `offline` is unavailable: failed to start: "
        ),
        "{}",
        offline.text_content()
    );

    let Some(ServerStatus::Unavailable(why)) = servers.status("ghost") else {
        panic!("{:?}", servers.status("ghost"))
    };
    assert!(
        why.contains("cannot run `/nonexistent/mcp-server`"),
        "{why}"
    );
    let Some(ServerStatus::Unavailable(why)) = servers.status("crashy") else {
        panic!("{:?}", servers.status("crashy"))
    };
    assert!(
        why.contains("cannot open database"),
        "the server's stderr is in the message: {why}"
    );

    let tools = servers.tool_set();
    assert_eq!(
        names(&tools),
        ["time__get_current_time", "time__convert_time"]
    );
    let ghost = call(&tools, "ghost__anything", json!({})).await;
    assert!(ghost.is_error);
    let text = ghost.text_content();
    assert!(
        text.starts_with("tool `ghost__anything` failed: MCP server `ghost` is unavailable: failed to start: cannot run `/nonexistent/mcp-server`"),
        "{text}"
    );
    // `crashy` is tried again on its next call (reconnect is on), fails
    // again, and says why.
    let crashy = call(&tools, "crashy__tool", json!({})).await;
    assert!(crashy.is_error);
    assert!(
        crashy.text_content().contains("cannot open database"),
        "{}",
        crashy.text_content()
    );

    // The working server is unaffected.
    let utc = call(&tools, "time__get_current_time", json!({"timezone": "UTC"})).await;
    assert_eq!(json_text(&utc)["timezone"], "UTC");
    servers.shutdown().await;
}

fn kill(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -9 {pid}");
}

/// Waits (bounded) until the client has noticed that `server` is gone.
async fn until_unavailable(servers: &McpServers, server: &str) {
    for _ in 0..1200 {
        if matches!(servers.status(server), Some(ServerStatus::Unavailable(_))) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "{server} still looks connected: {:?}",
        servers.status(server)
    );
}

#[tokio::test]
async fn a_killed_server_is_restarted_on_the_next_call() {
    let config = McpConfig::new()
        .with_server("everything", everything_spec())
        .unwrap();
    let options = McpOptions::new().filters([filter(
        "everything",
        &["echo", "trigger-long-running-operation"],
    )]);
    let servers = McpServers::connect(&config, options).await.unwrap();
    let tools = servers.tool_set();
    let first_pid = servers.pid("everything").expect("a stdio server has a pid");

    // Killed between calls: the next call starts it again and succeeds.
    kill(first_pid);
    until_unavailable(&servers, "everything").await;
    let echo = call(
        &tools,
        "everything__echo",
        json!({"message": "after restart"}),
    )
    .await;
    assert_eq!(echo.text_content(), "Echo: after restart");
    let second_pid = servers.pid("everything").unwrap();
    assert_ne!(first_pid, second_pid);
    // Names survive the restart.
    let mut listed = names(&tools);
    listed.sort();
    assert_eq!(
        listed,
        [
            "everything__echo",
            "everything__trigger-long-running-operation"
        ]
    );

    // Killed during a call: that call gets an error result (it is not
    // retried), and the call after it restarts the server.
    let running = {
        let tools = tools.clone();
        tokio::spawn(async move {
            call(
                &tools,
                "everything__trigger-long-running-operation",
                json!({"duration": 30, "steps": 2}),
            )
            .await
        })
    };
    // Give the request time to reach the server (the operation takes 30 s).
    tokio::time::sleep(Duration::from_millis(1000)).await;
    kill(second_pid);
    let died = running.await.unwrap();
    assert!(died.is_error);
    assert!(
        died.text_content().contains(
            "MCP server `everything`: it stopped during a call of `trigger-long-running-operation`"
        ) && died
            .text_content()
            .ends_with("it will be started again on the next call"),
        "{}",
        died.text_content()
    );
    let echo = call(&tools, "everything__echo", json!({"message": "again"})).await;
    assert_eq!(echo.text_content(), "Echo: again");
    assert_ne!(servers.pid("everything"), Some(second_pid));
    servers.shutdown().await;
}

#[tokio::test]
async fn without_reconnect_a_killed_server_stays_down() {
    let config = McpConfig::new()
        .with_server("everything", everything_spec().reconnect(false))
        .unwrap();
    let options = McpOptions::new().filters([filter("everything", &["echo"])]);
    let servers = McpServers::connect(&config, options).await.unwrap();
    let tools = servers.tool_set();
    kill(servers.pid("everything").unwrap());
    until_unavailable(&servers, "everything").await;
    for _ in 0..2 {
        let echo = call(&tools, "everything__echo", json!({"message": "x"})).await;
        assert!(echo.is_error);
        assert!(
            echo.text_content().starts_with(
                "tool `everything__echo` failed: MCP server `everything` is unavailable"
            ),
            "{}",
            echo.text_content()
        );
    }
    assert!(matches!(
        servers.status("everything"),
        Some(ServerStatus::Unavailable(_))
    ));
}

#[tokio::test]
async fn each_call_has_a_timeout_and_the_server_stays_usable() {
    let config = McpConfig::new()
        .with_server(
            "everything",
            everything_spec().call_timeout(Duration::from_secs(2)),
        )
        .unwrap();
    let options = McpOptions::new().filters([filter(
        "everything",
        &["echo", "trigger-long-running-operation"],
    )]);
    let servers = McpServers::connect(&config, options).await.unwrap();
    let tools = servers.tool_set();
    let slow = call(
        &tools,
        "everything__trigger-long-running-operation",
        json!({"duration": 20, "steps": 2}),
    )
    .await;
    assert!(slow.is_error);
    assert_eq!(
        slow.text_content(),
        "MCP tool `trigger-long-running-operation` on server `everything` timed out after 2000 ms"
    );
    let echo = call(&tools, "everything__echo", json!({"message": "still here"})).await;
    assert_eq!(echo.text_content(), "Echo: still here");
    servers.shutdown().await;
}

#[tokio::test]
async fn filters_must_name_configured_servers() {
    let config = McpConfig::new().with_server("time", time_spec()).unwrap();
    let err = McpServers::connect(&config, McpOptions::new().filters([filter("tiem", &["*"])]))
        .await
        .unwrap_err();
    assert_eq!(err.server(), Some("tiem"));
    assert!(err.to_string().contains("not among the servers"), "{err}");
}

#[tokio::test]
async fn malformed_arguments_never_reach_the_server() {
    let config = McpConfig::new().with_server("time", time_spec()).unwrap();
    let servers = McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap();
    let tools = servers.tool_set();
    let call = ToolCall::new("c", "time__get_current_time", ToolArgs::from_json("[1, 2]"));
    let result = tools.call(&CallScope::new("t"), call).await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "invalid arguments for tool `time__get_current_time`: arguments must be a JSON object, got an array"
    );
    let _ = ToolSource::Mcp;
    servers.shutdown().await;
}

#[tokio::test]
async fn the_tool_list_follows_list_changed_notifications() {
    let script = mcp_support::fixture("growing_server.py");
    let config = McpConfig::new()
        .with_server(
            "growing",
            ServerSpec::stdio(mcp_support::python()).args([script.to_string_lossy()]),
        )
        .unwrap();
    let servers = McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap();
    let tools = servers.tool_set();
    assert_eq!(
        names(&tools),
        ["growing__grow"],
        "{:?}",
        servers.status("growing")
    );
    let grown = call(&tools, "growing__grow", json!({})).await;
    assert_eq!(grown.text_content(), "grown");
    // The notification is handled in the background: wait (bounded) for it.
    for _ in 0..1200 {
        if names(&tools).len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(names(&tools), ["growing__grow", "growing__extra"]);
    let extra = call(&tools, "growing__extra", json!({})).await;
    assert_eq!(extra.text_content(), "extra here");
    servers.shutdown().await;
}
