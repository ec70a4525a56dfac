#![allow(clippy::unwrap_used)]
//! `meta:key` / `meta:key=value` matchers (#24): hooks select the tools by
//! the metadata they declare (`#[tool(meta(..))]`, `agents = [X(meta(..))]`,
//! a hand-written `Tool::META`), decided at compile time for the tools an
//! `#[agent]` lists and on each call for tools registered at run time.

use hookwire::agent::lifecycle::{ForTools, LifecycleHooks, PreToolUse};
use hookwire::agent::{Agent, Runner, TraceEvent, WithTools};
use hookwire::matcher::Matcher;
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{
    Decision, Next, Outcome, Router, Tool, ToolArgs, ToolContext, ToolSet, ToolSource,
    call::NoArgs, matcher::ToolMeta,
};
use serde_json::json;

/// Tags results with `[flag]`.
#[hookwire::hook]
async fn flag(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(" [flag]");
    }
    outcome
}

/// Tags results with `[any-risk:<value the hook reads>]`.
#[hookwire::hook]
async fn any_risk(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let risk = cx.meta().get("risk").unwrap_or("-").to_owned();
    let mut outcome = next.run(cx, args).await;
    if let Ok(r) = &mut outcome {
        r.append_text(&format!(" [any-risk:{risk}]"));
    }
    outcome
}

/// Deletes (high risk, destructive: a bare key is `"true"`).
#[hookwire::tool(meta(risk = "high", destructive))]
fn delete(path: String) -> String {
    format!("deleted {path}")
}

/// Reads (low risk).
#[hookwire::tool(meta(risk = "low"))]
fn read(path: String) -> String {
    format!("read {path}")
}

/// Pings (no metadata).
#[hookwire::tool]
fn ping() -> String {
    "pong".to_owned()
}

/// Denies every call it sees.
#[derive(Default)]
pub struct DenyDestructive;

impl LifecycleHooks for DenyDestructive {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        Decision::Deny(format!("{} is destructive", cx.tool))
    }

    fn name(&self) -> &'static str {
        "DenyDestructive"
    }
}

/// A child agent, listed with metadata of its own.
#[hookwire::agent(name = "helper")]
pub struct Helper;

/// Hooks selected by metadata, tools that declare it or not.
#[hookwire::agent(
    name = "ops",
    runtime_tools,
    function_tools = [delete, read, ping],
    agents = [Helper(name = "helper", meta(risk = "high"))],
    tool_hooks = [any_risk(match = "meta:risk"), flag(match = "meta:risk=high")],
    hooks = [DenyDestructive(match = "meta:destructive=true")],
)]
pub struct Ops;

/// Each traced call: its tool, hooks and what the model read.
fn traced_calls(trace: &[TraceEvent]) -> Vec<(String, Vec<String>, String)> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    tool,
                    hooks,
                    result,
                    ..
                } = &**call;
                Some((tool.to_string(), hooks.clone(), result.text_content()))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn hooks_run_only_on_the_tools_whose_metadata_their_matcher_selects() {
    let model = ScriptedModel::from_turns([
        Turn::call("read", json!({"path": "a"}))
            .and_call("ping", json!({}))
            .and_call("delete", json!({"path": "b"})),
        Turn::text("done"),
    ]);
    let agent = Ops::new();
    let mut runner = Runner::new(agent, model);
    let out = runner.run("go").await.unwrap();
    let s = |v: &[&str]| v.iter().map(|h| (*h).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        traced_calls(&out.trace),
        [
            (
                "read".to_owned(),
                s(&["any_risk"]),
                "read a [any-risk:low]".to_owned()
            ),
            ("ping".to_owned(), s(&[]), "pong".to_owned()),
            // The lifecycle hook (`meta:destructive=true`) denies it before
            // its chain runs.
            (
                "delete".to_owned(),
                s(&["any_risk", "flag"]),
                "tool call denied by `DenyDestructive`: delete is destructive".to_owned()
            ),
        ]
    );
    // The child agent's tool carries the metadata it is listed with.
    let ops = runner.agent();
    assert_eq!(
        ops.hooks_for("agent__helper", ToolSource::Agent),
        ["any_risk", "flag"]
    );
    assert_eq!(
        ops.hooks_for("ping", ToolSource::Function),
        Vec::<&str>::new()
    );
    assert_eq!(
        ops.tools().meta("delete"),
        ToolMeta::from_static(&[("risk", "high"), ("destructive", "true")])
    );
    assert_eq!(
        ops.tools().meta("agent__helper"),
        ToolMeta::from_static(&[("risk", "high")])
    );
}

/// A hand-written tool that declares its metadata.
struct Wipe;

impl Tool for Wipe {
    type Args = NoArgs;
    const META: &'static [(&'static str, &'static str)] = &[("risk", "high")];

    fn name(&self) -> &str {
        "wipe"
    }

    fn description(&self) -> &str {
        "Wipes."
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        Ok(hookwire::ToolResult::text("wiped"))
    }
}

/// A registered tool with metadata known only at run time.
struct Peek(ToolMeta);

impl Tool for Peek {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "peek"
    }

    fn description(&self) -> &str {
        "Peeks."
    }

    fn meta(&self) -> ToolMeta {
        self.0.clone()
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        Ok(hookwire::ToolResult::text("peeked"))
    }
}

#[tokio::test]
async fn tools_registered_at_run_time_are_matched_on_their_metadata_on_each_call() {
    let tools = Router::new()
        .tool(Wipe)
        .tool(Peek(ToolMeta::from_pairs([("risk", "medium")])));
    let agent = WithTools::new(Ops::new(), tools);
    assert!(agent.warnings().is_empty(), "{:?}", agent.warnings());
    let model = ScriptedModel::from_turns([
        Turn::call("wipe", json!({})).and_call("peek", json!({})),
        Turn::text("done"),
    ]);
    let out = Runner::new(agent, model).run("go").await.unwrap();
    let s = |v: &[&str]| v.iter().map(|h| (*h).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        traced_calls(&out.trace),
        [
            (
                "wipe".to_owned(),
                s(&["any_risk", "flag"]),
                "wiped [flag] [any-risk:high]".to_owned()
            ),
            (
                "peek".to_owned(),
                s(&["any_risk"]),
                "peeked [any-risk:medium]".to_owned()
            ),
        ]
    );
}

/// Records the tools whose calls it sees.
#[derive(Default)]
struct Seen(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl LifecycleHooks for Seen {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        self.0.lock().unwrap().push(cx.tool.to_owned());
        Decision::Continue
    }
}

#[tokio::test]
async fn a_runner_lifecycle_hook_with_a_meta_matcher_sees_the_tools_that_declare_it() {
    let seen = Seen::default();
    let log = seen.0.clone();
    let hooks = ForTools::new(Matcher::parse("meta:risk=low|ping").unwrap(), seen);
    let model = ScriptedModel::from_turns([
        Turn::call("read", json!({"path": "a"}))
            .and_call("delete", json!({"path": "b"}))
            .and_call("ping", json!({})),
        Turn::text("done"),
    ]);
    Runner::new(Helperless::new(), model)
        .with_hooks(hooks)
        .run("go")
        .await
        .unwrap();
    assert_eq!(*log.lock().unwrap(), ["read", "ping"]);
}

/// `read` and `ping` without hooks.
#[hookwire::agent(name = "plain", function_tools = [read, ping, delete])]
pub struct Helperless;
