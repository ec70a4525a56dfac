//! The trace shows what each call did: the arguments the model sent, the
//! arguments the tool received when hooks rewrote them, and the hooks of
//! the call's chain, for allowed calls as for refused ones.
#![allow(clippy::unwrap_used)]

use hookwire::agent::{Runner, TraceEvent};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{Decision, ToolArgs, ToolContext};
use serde_json::{Value, json};

/// Adds one to `x`.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// Clamps `x` to at most 10; refuses negative numbers.
#[hookwire::hook]
async fn clamp(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    match args.get("x").and_then(Value::as_i64) {
        Some(x) if x < 0 => Decision::Deny("negative".into()),
        Some(x) if x > 10 => {
            let _ = args.insert("x", 10.into());
            Decision::Continue
        }
        _ => Decision::Continue,
    }
}

/// Looks at every call.
#[hookwire::hook]
async fn watch(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
    Decision::Continue
}

/// Adds, carefully.
#[hookwire::agent(name = "adder", function_tools = [add_one], tool_hooks = [watch, clamp])]
pub struct Adder;

/// (arguments, received, hooks, result) of each tool call in the trace.
fn calls(trace: &[TraceEvent]) -> Vec<(Value, Option<Value>, Vec<String>, String)> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    arguments,
                    received,
                    hooks,
                    result,
                    ..
                } = &**call;
                Some((
                    arguments.to_value().unwrap(),
                    received.as_ref().map(|r| r.to_value().unwrap()),
                    hooks.clone(),
                    result.text_content(),
                ))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_trace_shows_what_the_model_sent_what_the_tool_received_and_the_hooks() {
    let model = ScriptedModel::from_turns([
        Turn::call("add_one", json!({"x": 50}))
            .and_call("add_one", json!({"x": 5}))
            .and_call("add_one", json!({"x": -1})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(Adder::new(), model);
    let out = runner.run("add").await.unwrap();
    let hooks = vec!["watch".to_owned(), "clamp".to_owned()];
    assert_eq!(
        calls(&out.trace),
        [
            (
                json!({"x": 50}),
                Some(json!({"x": 10})),
                hooks.clone(),
                "11".to_owned()
            ),
            (json!({"x": 5}), None, hooks.clone(), "6".to_owned()),
            (
                json!({"x": -1}),
                None,
                hooks,
                "tool call denied by `clamp`: negative".to_owned()
            ),
        ]
    );
    let text = out.trace_text();
    assert!(
        text.contains(r#"tool add_one (function) {"x":50}, received {"x":10} -> allowed [hooks: watch, clamp]"#),
        "{text}"
    );
}
