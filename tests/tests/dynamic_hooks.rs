//! Agent-level hooks around tools discovered at run time (MCP tools):
//! the generated `AgentDecl::call_dynamic` applies them in declared order,
//! each only where its matcher selects the tool, evaluated at run time.

use hookwire::agent::AgentDecl;
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
