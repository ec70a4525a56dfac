//! An agent whose declaration names MCP servers: connected when it starts,
//! run by the agent loop, its MCP calls through hooks, and a server that
//! fails to start does not stop the run.
#![cfg(feature = "mcp")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::mcp_support;

use hookwire::agent::{Agent, AgentConfig, Runner};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{
    Decision, FnTool, HookError, Json, Pre, PreHook, Router, ToolArgs, ToolContext, ToolSet, chain,
};
use hookwire::{When, mcp::McpAgent, mcp::McpConfig, mcp::ServerSpec, mcp::ServerStatus};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddOne {
    x: i64,
}

struct Pmo<T> {
    config: AgentConfig,
    tools: T,
}

impl<T: ToolSet + 'static> Agent for Pmo<T> {
    type Tools = T;
    fn config(&self) -> &AgentConfig {
        &self.config
    }
    fn tools(&self) -> &T {
        &self.tools
    }
}

/// Forces every time lookup to Europe/London.
struct London;
impl PreHook for London {
    async fn before(
        &self,
        _: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        args.insert("timezone", json!("Europe/London"))?;
        Ok(Decision::Continue)
    }
}

fn config() -> McpConfig {
    McpConfig::new()
        .with_server(
            "time",
            ServerSpec::stdio(mcp_support::time_server()).args(["--local-timezone", "UTC"]),
        )
        .unwrap()
        .with_server("ghost", ServerSpec::stdio("/nonexistent/ghost-server"))
        .unwrap()
        .with_server("unused", ServerSpec::stdio("/nonexistent/never-started"))
        .unwrap()
}

fn pmo() -> Pmo<impl ToolSet + 'static> {
    Pmo {
        config: AgentConfig::new("PMO-orchestrator")
            .with_server("time")
            .with_server("ghost")
            .with_mcp_filter("time", ["get_current_time"]),
        tools: Router::new().tool(FnTool::new(
            "add_one",
            "Adds one.",
            |a: AddOne| async move { Json(a.x + 1) },
        )),
    }
}

#[tokio::test]
async fn the_agent_loop_calls_mcp_tools_through_hooks_and_survives_a_dead_server() {
    let london = When::matching("time__*", Pre(London)).unwrap();
    let agent = McpAgent::connect_with(pmo(), &config(), |call| chain!(london => call))
        .await
        .unwrap();
    // Only the servers the agent names were started, and the filter applied.
    assert!(agent.servers().status("unused").is_none());
    assert!(matches!(
        agent.servers().status("ghost"),
        Some(ServerStatus::Unavailable(_))
    ));
    let names: Vec<_> = agent
        .tools()
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["add_one", "time__get_current_time"]);

    let model = ScriptedModel::from_turns([
        Turn::call("time__get_current_time", json!({"timezone": "Asia/Tokyo"}))
            .and_call("ghost__haunt", json!({}))
            .and_call("add_one", json!({"x": 1})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(agent, model);
    let out = runner.run("What time is it?").await.unwrap();
    assert_eq!(out.text, "done");
    let results: Vec<String> = runner.history()[2..5].iter().map(|m| m.text()).collect();
    // The hook rewrote the time zone before the real server answered.
    let time: serde_json::Value = serde_json::from_str(&results[0]).unwrap();
    assert_eq!(time["timezone"], "Europe/London", "{results:?}");
    // The dead server's tool gave an error result, and the run went on.
    assert!(
        results[1].contains("MCP server `ghost` is unavailable: failed to start"),
        "{results:?}"
    );
    assert_eq!(results[2], "2");
}

#[tokio::test]
async fn unknown_server_names_are_errors_that_name_them() {
    let agent = Pmo {
        config: AgentConfig::new("a").with_server("tiem"),
        tools: Router::new(),
    };
    let err = McpAgent::connect(agent, &config()).await.err().unwrap();
    assert_eq!(err.server(), Some("tiem"));
    assert!(
        err.to_string()
            .starts_with("server `tiem`: not declared in the server configuration"),
        "{err}"
    );
}

/// A request-start injection of a real MCP tool (`mcp-server-time`): its
/// call is named `time__get_current_time` after the entry's toolset, goes
/// through the agent's hooks for MCP tools (the `time__*` hook rewrites
/// the time zone) with the entry's arguments, and the server's answer is
/// what the model reads before its first request.
#[tokio::test]
async fn a_request_start_injection_calls_a_real_mcp_tool_through_its_hooks() {
    let hook = hookwire::agent::RequestHook::on_request_start("get_current_time")
        .in_toolset("time")
        .with_arguments(
            json!({"timezone": "Asia/Tokyo"})
                .as_object()
                .cloned()
                .unwrap(),
        )
        .with_frequency(hookwire::agent::Frequency::Always);
    let mut agent = pmo();
    agent.config = agent.config.with_request_hook(hook);
    let london = When::matching("time__*", Pre(London)).unwrap();
    let agent = McpAgent::connect_with(agent, &config(), |call| chain!(london => call))
        .await
        .unwrap();
    let model = ScriptedModel::from_turns([
        Turn::text("noted").expecting(hookwire::model::TurnExpectation {
            last_contains: Some("\"timezone\": \"Europe/London\"".into()),
            ..Default::default()
        }),
        Turn::text("again"),
    ]);
    let mut runner = Runner::new(agent, model);
    assert_eq!(runner.run("What time is it?").await.unwrap().text, "noted");
    assert_eq!(runner.run("And now?").await.unwrap().text, "again");
    let history = runner.history();
    let roles: Vec<_> = history.iter().map(hookwire::model::Message::role).collect();
    assert_eq!(
        roles.join(" "),
        "user assistant tool assistant user assistant tool assistant",
        "`always`: injected at each request"
    );
    let hookwire::model::Message::Assistant { tool_calls, .. } = &history[1] else {
        panic!("{history:?}");
    };
    assert_eq!(&*tool_calls[0].name, "time__get_current_time");
    assert_eq!(
        tool_calls[0].arguments.to_value().unwrap(),
        json!({"timezone": "Asia/Tokyo"}),
        "the entry's arguments, as the model reads the call"
    );
    for at in [2, 6] {
        let result = history[at].tool_result().unwrap();
        assert!(!result.is_error, "{}", result.text_content());
        let time: serde_json::Value = serde_json::from_str(&result.text_content()).unwrap();
        assert_eq!(time["timezone"], "Europe/London", "{time}");
        assert!(time["datetime"].as_str().is_some(), "{time}");
    }
}
