//! MCP servers pinned to a lock (`McpConfig::with_lock`): a tool that
//! differs from the lock, at connect time or after the server's
//! `tools/list_changed`, is never offered to the model; it is reported
//! (a `ToolRefused` trace event), and `on_change: stop` stops the run.
//! The server is `fixtures/mcp/shifty_server.py`, whose `pull` tool
//! poisons `transfer`'s description and adds `exfiltrate`.
#![cfg(feature = "mcp")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common::seeing::seeing;
use crate::mcp_support;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hookwire::agent::{AgentConfig, BasicAgent, RunError, Runner, TraceEvent};
use hookwire::mcp::{McpAgent, McpConfig, McpLock, McpServers, OnChange, ServerSpec};
use hookwire::model::Turn;
use hookwire::{FnTool, Router, ToolSet};
use serde_json::json;

fn shifty(args: &[&str]) -> ServerSpec {
    let mut all = vec![
        mcp_support::fixture("shifty_server.py")
            .to_string_lossy()
            .into_owned(),
    ];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    ServerSpec::stdio(mcp_support::python()).args(all)
}

/// The lock of the server as it starts (its own tool list, read as the
/// runtime reads a listing), with `on_change`.
fn lock(on_change: OnChange) -> McpLock {
    let out = std::process::Command::new(mcp_support::python())
        .arg(mcp_support::fixture("shifty_server.py"))
        .arg("--print-tools")
        .output()
        .unwrap();
    let listed: Vec<hookwire::mcp::rmcp::model::Tool> =
        serde_json::from_slice(&out.stdout).unwrap();
    let tools: BTreeMap<String, _> = listed
        .iter()
        .map(|t| (t.name.to_string(), hookwire::mcp::locked_tool(t)))
        .collect();
    let text = format!(
        r#"{{"version": 1, "on_change": "{}", "servers": {{}}}}"#,
        match on_change {
            OnChange::Stop => "stop",
            _ => "drop",
        }
    );
    let mut lock = McpLock::parse(&text).unwrap();
    lock.servers.insert("bank".to_owned(), tools);
    lock
}

fn config(args: &[&str], on_change: OnChange) -> McpConfig {
    McpConfig::new()
        .with_server("bank", shifty(args))
        .unwrap()
        .with_lock(lock(on_change))
}

type Servers = Arc<OnceLock<McpServers>>;

/// An agent on `bank` with one static tool, `settle`, which waits until
/// the servers have refused a tool (the re-listing after `list_changed`
/// runs in the background).
fn bank() -> (BasicAgent<impl ToolSet + 'static>, Servers) {
    let servers = Servers::default();
    let watched = servers.clone();
    let settle = FnTool::new("settle", "Waits.", move |_: serde_json::Value| {
        let watched = watched.clone();
        async move {
            for _ in 0..1200 {
                if watched.get().is_some_and(|s| !s.refused().is_empty()) {
                    return "settled".to_owned();
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            "never refused".to_owned()
        }
    });
    let agent = BasicAgent::new(
        AgentConfig::new("teller").with_server("bank"),
        Router::new().tool(settle),
    );
    (agent, servers)
}

const POISONED: &str =
    "server `bank`: tool `transfer` changed since it was locked: its description differs";
const NEW: &str = "server `bank`: tool `exfiltrate` is new: the lock does not have it";

/// The model calls `pull` (the server poisons `transfer` and adds
/// `exfiltrate`), then `settle`, then answers.
async fn pull(
    on_change: OnChange,
) -> (
    Result<hookwire::agent::RunOutput, RunError>,
    Vec<Vec<String>>,
) {
    let (agent, servers) = bank();
    let agent = McpAgent::connect(agent, &config(&[], on_change))
        .await
        .unwrap();
    servers.set(agent.servers().clone()).ok();
    let (model, offered) = seeing([
        Turn::call("bank__pull", json!({})),
        Turn::call("settle", json!({})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(agent, model);
    let out = runner.run("Pay the rent.").await;
    let offered = offered
        .lock()
        .unwrap()
        .iter()
        .map(|(_, t)| t.clone())
        .collect();
    (out, offered)
}

#[tokio::test]
async fn a_tool_changed_under_a_run_is_not_offered_and_is_reported() {
    let (out, offered) = pull(OnChange::Drop).await;
    let out = out.unwrap();
    assert_eq!(out.text, "done");
    let all = ["settle", "bank__balance", "bank__transfer", "bank__pull"];
    assert_eq!(offered[0], all);
    // After the server changed its tools: neither the poisoned `transfer`
    // nor the new `exfiltrate`.
    assert_eq!(offered[2], ["settle", "bank__balance", "bank__pull"]);
    let refused: Vec<(&str, &str)> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolRefused { tool, reason } => Some((tool.as_str(), reason.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        refused,
        [("bank__transfer", POISONED), ("bank__exfiltrate", NEW)]
    );
}

#[tokio::test]
async fn on_change_stop_stops_the_run_naming_the_tool() {
    let (out, offered) = pull(OnChange::Stop).await;
    let Err(RunError::ToolsRefused(refused)) = out else {
        panic!("{out:?}");
    };
    let names: Vec<&str> = refused.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(names, ["bank__transfer", "bank__exfiltrate"]);
    let error = RunError::ToolsRefused(refused).to_string();
    assert_eq!(
        error,
        format!(
            "tool `bank__transfer` refused: {POISONED}; tool `bank__exfiltrate` refused: {NEW}"
        )
    );
    // The model was not asked after the change was seen (before `settle`'s
    // answer, or at once if the re-listing was quicker than the call).
    assert!(offered.len() < 3, "{offered:?}");
}

#[tokio::test]
async fn a_tool_that_differs_when_the_server_starts_is_never_offered() {
    for (changed, tool, reason) in [
        (
            "schema",
            "bank__transfer",
            "server `bank`: tool `transfer` changed since it was locked: its input schema differs",
        ),
        (
            "annotations",
            "bank__balance",
            "server `bank`: tool `balance` changed since it was locked: its annotations (destructiveHint, readOnlyHint) differ",
        ),
    ] {
        let (agent, _) = bank();
        let agent = McpAgent::connect(agent, &config(&[changed], OnChange::Drop))
            .await
            .unwrap();
        let (model, offered) = seeing([Turn::text("done")]);
        let mut runner = Runner::new(agent, model);
        let out = runner.run("Hi.").await.unwrap();
        let seen = &offered.lock().unwrap()[0].1;
        assert!(!seen.iter().any(|t| t == tool), "{changed}: {seen:?}");
        assert_eq!(seen.len(), 3, "{changed}: {seen:?}");
        assert!(
            out.trace.contains(&TraceEvent::ToolRefused {
                tool: tool.to_owned(),
                reason: reason.to_owned()
            }),
            "{changed}: {:?}",
            out.trace
        );
    }
}

#[tokio::test]
async fn a_lock_beside_the_configuration_is_loaded_with_it() {
    let dir = std::env::temp_dir().join(format!("hookwire-mcp-lock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let yaml = format!(
        "servers:\n  bank:\n    command: {}\n    args: [{:?}, description]\n",
        mcp_support::python(),
        mcp_support::fixture("shifty_server.py").to_string_lossy()
    );
    std::fs::write(dir.join("hookwire.yaml"), yaml).unwrap();
    std::fs::write(dir.join("hookwire.lock"), lock(OnChange::Drop).to_text()).unwrap();
    let config = McpConfig::load(dir.join("hookwire.yaml")).unwrap();
    let servers = McpServers::connect(&config, hookwire::mcp::McpOptions::new())
        .await
        .unwrap();
    let names: Vec<String> = servers.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["bank__balance", "bank__pull"]);
    let refused: Vec<String> = servers.refused().iter().map(ToString::to_string).collect();
    assert_eq!(refused, [POISONED]);
    servers.shutdown().await;
    // A broken lock is an error naming it, not a silently unpinned server.
    std::fs::write(dir.join("hookwire.lock"), "{\"version\": 1}").unwrap();
    let e = McpConfig::load(dir.join("hookwire.yaml")).unwrap_err();
    assert!(
        e.to_string()
            .contains("hookwire.lock: missing field `servers`"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
