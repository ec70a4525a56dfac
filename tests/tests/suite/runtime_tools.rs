#![allow(clippy::unwrap_used)]
//! Tools registered at run time (`WithTools`): source `runtime`, behind the
//! agent's agent-level hooks with matchers evaluated per call.

use hookwire::agent::{Agent, Runner, TraceEvent, WithTools};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{FnTool, Next, Outcome, Router, ToolArgs, ToolContext, ToolSource, call::NoArgs};
use serde_json::json;

/// Tags results with `[all:<source the hook sees>]`.
#[hookwire::hook]
async fn tag_all(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let source = cx.source();
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(&format!(" [all:{source}]"));
    }
    outcome
}

/// Tags results with `[runtime]`.
#[hookwire::hook]
async fn tag_runtime(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" [runtime]");
    }
    outcome
}

/// Tags results with `[function]`.
#[hookwire::hook]
async fn tag_function(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" [function]");
    }
    outcome
}

/// A static tool.
#[hookwire::tool]
fn ping() -> String {
    "pong".to_owned()
}

/// An agent that takes tools registered at run time.
#[hookwire::agent(
    name = "rt",
    runtime_tools,
    function_tools = [ping],
    tool_hooks = [tag_all, tag_runtime(match = "source:runtime"), tag_function(match = "source:function")],
)]
pub struct Rt;

/// Each traced call: its tool, source, hooks and what the model read.
fn traced_calls(trace: &[TraceEvent]) -> Vec<(String, ToolSource, Vec<String>, String)> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    tool,
                    source,
                    hooks,
                    result,
                    ..
                } = &**call;
                Some((
                    tool.to_string(),
                    *source,
                    hooks.clone(),
                    result.text_content(),
                ))
            }
            _ => None,
        })
        .collect()
}

fn echo() -> Router<impl hookwire::toolset::RouterList> {
    Router::new().tool(FnTool::new("echo", "Echoes.", |_: NoArgs| async {
        "echoed".to_owned()
    }))
}

#[tokio::test]
async fn a_runtime_tool_runs_through_the_hooks_that_select_runtime_and_is_traced_as_runtime() {
    let agent = WithTools::new(Rt::new(), echo());
    assert!(agent.warnings().is_empty(), "{:?}", agent.warnings());
    let model = ScriptedModel::from_turns([
        Turn::call("echo", json!({})),
        Turn::call("ping", json!({})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(agent, model);
    let out = runner.run("go").await.unwrap();
    let calls = traced_calls(&out.trace);
    // Declared order is outermost first, so inner hooks tag first; the
    // hooks see the call's real source; `source:function` does not select
    // the runtime tool, nor `source:runtime` the function tool.
    assert_eq!(
        calls,
        [
            (
                "echo".to_owned(),
                ToolSource::Runtime,
                vec!["tag_all".to_owned(), "tag_runtime".to_owned()],
                "echoed [runtime] [all:runtime]".to_owned()
            ),
            (
                "ping".to_owned(),
                ToolSource::Function,
                vec!["tag_all".to_owned(), "tag_function".to_owned()],
                "pong [function] [all:function]".to_owned()
            ),
        ]
    );
    assert_eq!(
        runner.agent().hooks_for("echo", ToolSource::Runtime),
        ["tag_all", "tag_runtime"]
    );
}

/// Its `source:runtime` hook selects no tool until tools are registered.
#[hookwire::agent(name = "lonely", runtime_tools, function_tools = [ping], tool_hooks = [tag_runtime(match = "source:runtime")])]
pub struct Lonely;

#[test]
fn a_hook_that_selects_none_of_the_registered_tools_is_reported() {
    let agent = WithTools::new(Lonely::new(), Router::new());
    assert_eq!(
        agent.warnings(),
        [
            "hook `tag_runtime` with match `source:runtime` selects none of the 1 tools of agent `lonely` known once its run-time tools were registered: it runs on no call"
        ]
    );
    assert!(WithTools::new(Lonely::new(), echo()).warnings().is_empty());
}

/// A hand-written tool whose `Tool::source()` says `runtime`, listed
/// statically.
#[derive(Default, hookwire::FromDeps)]
pub struct Shell;

impl hookwire::Tool for Shell {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "shell"
    }

    fn description(&self) -> &str {
        "Runs a command."
    }

    fn source(&self) -> ToolSource {
        ToolSource::Runtime
    }

    async fn call(&self, _: &ToolContext, _: NoArgs) -> Outcome {
        Ok(hookwire::ToolResult::text("ran"))
    }
}

/// An agent listing `Shell` among its static tools.
#[hookwire::agent(
    name = "static_rt",
    runtime_tools,
    function_tools = [ping, Shell(name = "shell")],
    tool_hooks = [tag_all, tag_runtime(match = "source:runtime"), tag_function(match = "source:function")],
)]
pub struct StaticRt;

#[tokio::test]
async fn a_static_tool_is_reported_and_matched_by_its_own_source() {
    let agent = StaticRt::new();
    use hookwire::ToolSet;
    assert_eq!(agent.tools().source("shell"), Some(ToolSource::Runtime));
    assert_eq!(agent.tools().source("ping"), Some(ToolSource::Function));
    let model = ScriptedModel::from_turns([
        Turn::call("shell", json!({})),
        Turn::call("ping", json!({})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(agent, model);
    let out = runner.run("go").await.unwrap();
    let calls = traced_calls(&out.trace);
    // `source:runtime` selects the hand-written runtime tool and
    // `source:function` does not; the hooks see `runtime`.
    assert_eq!(
        calls,
        [
            (
                "shell".to_owned(),
                ToolSource::Runtime,
                vec!["tag_all".to_owned(), "tag_runtime".to_owned()],
                "ran [runtime] [all:runtime]".to_owned()
            ),
            (
                "ping".to_owned(),
                ToolSource::Function,
                vec!["tag_all".to_owned(), "tag_function".to_owned()],
                "pong [function] [all:function]".to_owned()
            ),
        ]
    );
}
