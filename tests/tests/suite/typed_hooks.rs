//! Typed hooks: a pre hook that takes a tool's arguments as their Rust type
//! reads and rewrites them as fields, the tool receives the rewrite, the
//! trace shows it, and a reading hook changes nothing the trace sees.
#![allow(clippy::unwrap_used)]

use hookwire::agent::{Runner, TraceEvent};
use hookwire::declare::ArgsOf;
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{Decision, ToolArgs, ToolContext};
use serde_json::{Value, json};

/// Refunds `amount` to `to`.
#[hookwire::tool]
fn refund(to: String, amount: u64) -> String {
    format!("refunded {amount} to {to}")
}

/// Pays `amount` to `to`.
#[hookwire::tool]
fn pay(to: String, amount: u64) -> String {
    format!("paid {amount} to {to}")
}

/// Refuses refunds to mallory (reads the arguments).
#[hookwire::hook]
async fn no_mallory(_cx: &mut ToolContext, args: &ArgsOf<refund>) -> Decision {
    if args.to == "mallory" {
        Decision::Deny(format!("no refund to {}", args.to))
    } else {
        Decision::Continue
    }
}

/// Caps a refund at 50 (rewrites a field).
#[hookwire::hook]
async fn cap_refund(_cx: &mut ToolContext, args: &mut ArgsOf<refund>) -> Decision {
    args.amount = args.amount.min(50);
    Decision::Continue
}

/// Notes the amount a JSON hook sees, after the typed rewrite.
#[hookwire::hook]
async fn json_reader(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let amount = args.get("amount").cloned().unwrap_or(Value::Null);
    cx.progress(format!("json sees {amount}"));
    // What the context names: the function behind the tool, and where it
    // runs (`None`: in the process).
    cx.progress(format!(
        "function {} server {:?}",
        cx.function().unwrap_or("none"),
        cx.server_name()
    ));
    Decision::Continue
}

/// Refunds `amount` to `to`, at most 10: its own typed hook caps it.
#[hookwire::tool(tool_hooks = [cap_small])]
fn small_refund(to: String, amount: u64) -> String {
    format!("refunded {amount} to {to}")
}

/// Caps a small refund at 10.
#[hookwire::hook]
async fn cap_small(_cx: &mut ToolContext, args: &mut ArgsOf<small_refund>) -> Decision {
    args.amount = args.amount.min(10);
    Decision::Continue
}

/// Refunds and pays, with typed hooks on refunds only.
#[hookwire::agent(
    name = "desk",
    function_tools = [refund, pay, small_refund],
    tool_hooks = [
        no_mallory(match = "refund"),
        cap_refund(match = "refund"),
        json_reader,
    ],
)]
pub struct Desk;

/// (arguments, received, result) of each tool call in the trace.
fn calls(trace: &[TraceEvent]) -> Vec<(Value, Option<Value>, String)> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some((
                call.arguments.to_value().unwrap(),
                call.received.as_ref().map(|r| r.to_value().unwrap()),
                call.result.text_content(),
            )),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn typed_hooks_read_and_rewrite_fields_and_the_tool_and_trace_see_the_rewrite() {
    let model = ScriptedModel::from_turns([
        Turn::call("refund", json!({"to": "acme", "amount": 70}))
            .and_call("refund", json!({"to": "bob", "amount": 20}))
            .and_call("refund", json!({"to": "mallory", "amount": 1}))
            .and_call("pay", json!({"to": "acme", "amount": 70}))
            .and_call("refund", json!({"to": "acme", "amount": "lots"}))
            .and_call("small_refund", json!({"to": "acme", "amount": 30})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(Desk::new(), model);
    let out = runner.run("refund").await.unwrap();
    let calls = calls(&out.trace);
    assert_eq!(calls.len(), 6, "{calls:?}");
    // Rewritten by the typed hook: the tool and the trace see 50.
    assert_eq!(
        calls[0],
        (
            json!({"to": "acme", "amount": 70}),
            Some(json!({"to": "acme", "amount": 50})),
            "refunded 50 to acme".to_owned()
        )
    );
    // Read and left as it was: nothing "received" in the trace.
    assert_eq!(
        calls[1],
        (
            json!({"to": "bob", "amount": 20}),
            None,
            "refunded 20 to bob".to_owned()
        )
    );
    assert_eq!(
        calls[2].2,
        "tool call denied by `no_mallory`: no refund to mallory"
    );
    // Not a refund: the typed hooks do not run on `pay`.
    assert_eq!(calls[3].2, "paid 70 to acme");
    assert_eq!(calls[3].1, None);
    // Arguments the typed hook cannot read are invalid arguments, named as
    // the tool would name them, not a hook failure.
    assert!(
        calls[4].2.contains("invalid arguments") && calls[4].2.contains("amount"),
        "{}",
        calls[4].2
    );
    assert!(!calls[4].2.contains("no_mallory"), "{}", calls[4].2);
    // A tool's own typed hook.
    assert_eq!(calls[5].2, "refunded 10 to acme");
    // A JSON hook after the typed one reads the rewritten value.
    let text = out.trace_text();
    assert!(text.contains("json sees 50"), "{text}");
    assert!(text.contains("json sees 70"), "{text}");
    assert!(
        text.contains("function suite::typed_hooks::refund server None"),
        "{text}"
    );
    assert!(
        text.contains("function suite::typed_hooks::pay server None"),
        "{text}"
    );
}
