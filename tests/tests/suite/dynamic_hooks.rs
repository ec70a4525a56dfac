#![allow(clippy::unwrap_used)]
//! Agent-level hooks around tools discovered at run time (MCP tools):
//! the generated `Agent::call_dynamic` applies them in declared order,
//! each only where its matcher selects the tool, evaluated at run time.

use hookwire::agent::Agent;
use hookwire::matcher::MatchTarget;
use hookwire::{Handler, Next, Outcome, ToolArgs, ToolContext, ToolResult, ToolSource};

/// Tags results with `[all]`.
#[hookwire::hook]
async fn tag_all(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" [all]");
    }
    outcome
}

/// Tags results of time tools with `[time]`.
#[hookwire::hook]
async fn tag_time(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" [time]");
    }
    outcome
}

/// Tags results of MCP tools that are not time tools with `[other-mcp]`.
#[hookwire::hook]
async fn tag_other(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" [other-mcp]");
    }
    outcome
}

/// A tool so the agent has a static tool too.
#[hookwire::tool]
fn ping() -> String {
    "pong".to_owned()
}

/// An agent whose hooks select MCP tools by name and source.
#[hookwire::agent(
    name = "dyn",
    servers = ["time", "fs"],
    function_tools = [ping],
    tool_hooks = [tag_all, tag_time(match = "time__*"), tag_other(match = "!time__*")],
)]
pub struct Dyn;

/// Stands in for an MCP call: answers with the tool's name.
struct FakeMcp;

impl Handler for FakeMcp {
    async fn call(&self, cx: &mut ToolContext, _args: ToolArgs) -> Outcome {
        Ok(ToolResult::text(cx.tool().to_owned()))
    }
}

async fn call(tool: &'static str) -> String {
    let mut cx = ToolContext::new(tool, ToolSource::Mcp, "id-1");
    let outcome = Dyn::new()
        .call_dynamic(&mut cx, ToolArgs::empty(), &FakeMcp)
        .await;
    outcome
        .map(|r| r.text_content())
        .unwrap_or_else(|e| e.to_string())
}

#[tokio::test]
async fn run_time_tools_get_the_agent_hooks_their_matchers_select_in_declared_order() {
    // Inner hooks tag first: declared order is outermost first.
    assert_eq!(
        call("time__get_current_time").await,
        "time__get_current_time [time] [all]"
    );
    assert_eq!(call("fs__read").await, "fs__read [other-mcp] [all]");
}

#[test]
fn a_hook_that_selects_none_of_the_tools_known_at_run_time_is_reported() {
    let dynamic = Dyn::new();
    let with_time = [
        MatchTarget::new("ping", ToolSource::Function),
        MatchTarget::new("time__now", ToolSource::Mcp),
    ];
    assert!(dynamic.hooks_selecting_none(&with_time).is_empty());
    let without = [
        MatchTarget::new("ping", ToolSource::Function),
        MatchTarget::new("fs__read", ToolSource::Mcp),
    ];
    assert_eq!(
        dynamic.hooks_selecting_none(&without),
        [("tag_time", "time__*".to_owned())]
    );
    // The trace's list of a call's hooks: for a tool found at run time, the
    // agent-level hooks whose matcher selects it, in declared order.
    assert_eq!(
        dynamic.hooks_for("time__now", ToolSource::Mcp),
        ["tag_all", "tag_time"]
    );
    assert_eq!(
        dynamic.hooks_for("fs__read", ToolSource::Mcp),
        ["tag_all", "tag_other"]
    );
    assert_eq!(
        dynamic.hooks_for("ping", ToolSource::Function),
        ["tag_all", "tag_other"]
    );
}

#[path = "../../../runtime/tests/mcp_support/mod.rs"]
pub(crate) mod mcp_support;

/// Meant for the time server's tools, with a typo.
#[hookwire::agent(
    name = "clock",
    servers = ["time"],
    function_tools = [ping],
    tool_hooks = [tag_time(match = "time__get_curent_time")],
)]
pub struct Clock;

/// Connected to the real `mcp-server-time`, the agent says loudly that a
/// hook selects none of its tools: when it connects, and in every run's
/// trace.
#[tokio::test]
async fn connecting_an_agent_whose_hook_selects_no_discovered_tool_warns_in_every_run() {
    use hookwire::agent::{Runner, TraceEvent};
    use hookwire::mcp::{McpAgent, McpConfig, ServerSpec};
    use hookwire::model::{ScriptedModel, Turn};
    let config = McpConfig::new()
        .with_server("time", ServerSpec::stdio(mcp_support::time_server()))
        .unwrap();
    let agent = McpAgent::connect(Clock::new(), &config).await.unwrap();
    let expected = "hook `tag_time` with match `time__get_curent_time` selects none of the 3 tools of agent `clock` known when its MCP servers connected: it runs on no call";
    assert_eq!(agent.warnings(), [expected]);
    let mut runner = Runner::new(agent, ScriptedModel::from_turns([Turn::text("ok")]));
    let out = runner.run("hi").await.unwrap();
    assert_eq!(
        out.trace[0],
        TraceEvent::Warning {
            text: expected.to_owned()
        }
    );
}
