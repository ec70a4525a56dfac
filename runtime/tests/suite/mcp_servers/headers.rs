//! A streamable-HTTP MCP server that needs a token (the Python `mcp` SDK,
//! `fixtures/mcp/token_http_server.py`: 401 without `Authorization: Bearer
//! <token>`, 403 without `X-Team`): the configuration's `headers:` with
//! `${VAR}` reach it; without them the server is unavailable with the
//! server's answer; an unset variable is an error before anything starts.

use std::time::Duration;

use hookwire::mcp::{McpConfig, McpOptions, McpServers, ServerStatus};
use serde_json::json;

use super::{call, free_port};
use crate::mcp_support;

/// Starts the token server on a free port; killed when dropped.
async fn token_server(token: &str) -> (tokio::process::Child, u16) {
    let port = free_port();
    let child = tokio::process::Command::new(mcp_support::python())
        .arg(mcp_support::fixture("token_http_server.py"))
        .args([port.to_string().as_str(), token, "blue"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..600 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return (child, port);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("token_http_server.py did not listen on {port}");
}

fn config(port: u16, headers: &str) -> McpConfig {
    McpConfig::from_yaml(&format!(
        "servers:\n  tok:\n    url: http://127.0.0.1:{port}/mcp\n    timeout_sec: 20\n{headers}"
    ))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_with_environment_values_reach_a_server_that_needs_a_token() {
    let (_server, port) = token_server("s3cret").await;
    let secrets = |name: &str| (name == "TOK_TOKEN").then(|| "s3cret".to_owned());

    // `headers:` with the token from a variable, and a plain header.
    let with = config(
        port,
        "    headers: {Authorization: \"Bearer ${TOK_TOKEN}\", X-Team: blue}\n",
    );
    let servers = McpServers::connect(&with, McpOptions::new().secrets(secrets))
        .await
        .unwrap();
    assert!(
        matches!(
            servers.status("tok"),
            Some(ServerStatus::Connected { tools: 1, .. })
        ),
        "{:?}",
        servers.status("tok")
    );
    let answer = call(&servers.tool_set(), "tok__whoami", json!({})).await;
    assert_eq!(answer.text_content(), "team blue, with a valid token");
    servers.shutdown().await;

    // `bearer_token:` is the same `Authorization` header.
    let bearer = config(
        port,
        "    bearer_token: ${TOK_TOKEN}\n    headers: {X-Team: blue}\n",
    );
    let servers = McpServers::connect(&bearer, McpOptions::new().secrets(secrets))
        .await
        .unwrap();
    let answer = call(&servers.tool_set(), "tok__whoami", json!({})).await;
    assert_eq!(answer.text_content(), "team blue, with a valid token");
    servers.shutdown().await;

    // Without the token: the server refuses, and says so.
    let without = config(port, "");
    let servers = McpServers::connect(&without, McpOptions::new())
        .await
        .unwrap();
    let Some(ServerStatus::Unavailable(why)) = servers.status("tok") else {
        panic!("{:?}", servers.status("tok"))
    };
    assert!(
        why.contains("HTTP 401 Unauthorized: missing or wrong bearer token"),
        "{why}"
    );
    assert!(
        why.ends_with(
            "(the server refused the credentials it got: give the server `headers:` or \
             `bearer_token:` in the configuration, with the secret as `${VAR}` from the \
             environment)"
        ),
        "{why}"
    );
    let answer = call(&servers.tool_set(), "tok__whoami", json!({})).await;
    assert!(answer.is_error);
    assert!(
        answer.text_content().contains("401"),
        "{}",
        answer.text_content()
    );
    servers.shutdown().await;

    // A wrong token: refused the same way.
    let wrong = |_: &str| Some("guess".to_owned());
    let servers = McpServers::connect(&with, McpOptions::new().secrets(wrong))
        .await
        .unwrap();
    assert!(
        matches!(servers.status("tok"), Some(ServerStatus::Unavailable(why)) if why.contains("401")),
        "{:?}",
        servers.status("tok")
    );
    servers.shutdown().await;
}

#[tokio::test]
async fn an_unset_variable_is_an_error_before_anything_starts() {
    // Nothing listens on the port: the error comes before any connection.
    let config = config(
        free_port(),
        "    headers: {Authorization: \"Bearer ${HOOKWIRE_TEST_SURELY_UNSET_TOKEN}\"}\n",
    );
    let e = McpServers::connect(&config, McpOptions::new())
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "server `tok`: header `Authorization` needs the environment variable \
         `HOOKWIRE_TEST_SURELY_UNSET_TOKEN`, which is not set: set it before the run (its \
         value stays out of the configuration)"
    );
}
