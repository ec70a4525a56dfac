//! Approval metadata and edited arguments: what a tool gives the approver
//! besides the arguments reaches every gate's approver and the pending
//! entry of a deferred call (across an export and an import), and an
//! approval with edited arguments runs exactly the edited call, after the
//! edit went through the tool's argument type.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use crate::agent_common::{test_agent, tool_results};

use hookwire::agent::{RunOutput, RunStatus, Runner, TraceEvent};
use hookwire::approval::{
    ApprovalDecision, Approvals, Approver, DeferAll, FnApprover, NeedsApproval, ResolveError,
};
use hookwire::model::{Message, ScriptedModel, ScriptedToolCall, Turn};
use hookwire::{
    Handler, Outcome, Router, Tool, ToolArgs, ToolContext, ToolHandler, ToolResult, ToolSource,
    chain,
};
use serde_json::{Value, json};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Transfer {
    to: String,
    amount: u64,
}

/// `transfer`: notes what it received; shows the approver a risk and the
/// payee.
#[derive(Clone, Default)]
struct TransferTool {
    received: Arc<Mutex<Vec<String>>>,
}

impl Tool for TransferTool {
    type Args = Transfer;

    fn name(&self) -> &str {
        "transfer"
    }

    fn description(&self) -> &str {
        "Transfers money."
    }

    fn approval_metadata(args: &Transfer) -> Option<Value> {
        let risk = if args.amount > 100 { "high" } else { "low" };
        Some(json!({"risk": risk, "payee": args.to}))
    }

    async fn call(&self, _cx: &ToolContext, t: Transfer) -> Outcome {
        self.received
            .lock()
            .unwrap()
            .push(format!("{} {}", t.to, t.amount));
        Ok(ToolResult::text(format!("sent {} to {}", t.amount, t.to)))
    }
}

/// An agent whose `transfer` has a `needs_approval` gate in its chain.
fn gated(tool: &TransferTool) -> impl hookwire::agent::Agent + 'static {
    let tools = Router::new().route(
        tool.definition(),
        ToolSource::Function,
        chain!(NeedsApproval::new(true) => ToolHandler(tool.clone())),
    );
    test_agent("bank", tools)
}

/// An agent whose `transfer` has no gate of its own: the loop's gate asks
/// when the run requires it.
fn plain(tool: &TransferTool) -> impl hookwire::agent::Agent + 'static {
    test_agent("bank", Router::new().tool(tool.clone()))
}

fn transfers(calls: &[(&str, Value)]) -> ScriptedModel {
    ScriptedModel::from_turns([
        Turn {
            tool_calls: calls
                .iter()
                .map(|(id, arguments)| ScriptedToolCall {
                    id: Some((*id).to_owned()),
                    name: "transfer".into(),
                    arguments: arguments.clone(),
                })
                .collect(),
            ..Turn::default()
        },
        Turn::text("done"),
    ])
}

/// One call as the trace records it: `(sent, received, [(gate, approved,
/// edited)])`.
type Recorded = (Value, Option<Value>, Vec<(String, bool, bool)>);

/// Each call of the run, as the trace records it.
fn calls(out: &RunOutput) -> Vec<Recorded> {
    out.trace
        .iter()
        .filter_map(|event| match event {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    arguments,
                    received,
                    approvals,
                    ..
                } = &**call;
                Some((
                    arguments.to_value().unwrap(),
                    received.as_ref().map(|r| r.to_value().unwrap()),
                    approvals
                        .iter()
                        .map(|n| (n.gate.clone(), n.approved, n.edited))
                        .collect(),
                ))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn metadata_reaches_the_approver_of_every_gate() {
    let tool = TransferTool::default();
    let seen: Arc<Mutex<Vec<Option<Value>>>> = Arc::default();
    let approver = |seen: Arc<Mutex<Vec<Option<Value>>>>| {
        FnApprover::new(move |req| {
            seen.lock().unwrap().push(req.metadata().cloned());
            ApprovalDecision::Approve
        })
    };
    // The chain's gate.
    let mut runner = Runner::new(
        gated(&tool),
        transfers(&[("c1", json!({"to": "acme", "amount": 500}))]),
    )
    .with_approvals(Approvals::new(approver(seen.clone())));
    runner.run("pay").await.unwrap();
    // The loop's gate (a run that requires approval for the tool).
    let mut runner = Runner::new(
        plain(&tool),
        transfers(&[("c1", json!({"to": "bob", "amount": 5}))]),
    )
    .with_approvals(Approvals::new(approver(seen.clone())));
    runner.approvals().require("transfer");
    runner.run("pay").await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            Some(json!({"risk": "high", "payee": "acme"})),
            Some(json!({"risk": "low", "payee": "bob"})),
        ]
    );
}

#[tokio::test]
async fn a_deferred_entry_keeps_the_metadata_across_export_and_import() {
    let tool = TransferTool::default();
    let mut runner = Runner::new(
        gated(&tool),
        transfers(&[("c1", json!({"to": "acme", "amount": 500}))]),
    )
    .with_approvals(Approvals::new(DeferAll));
    let out = runner.run("pay").await.unwrap();
    let RunStatus::Paused { pending } = &out.status else {
        panic!("{out:?}")
    };
    let shown = json!({"risk": "high", "payee": "acme"});
    assert_eq!(pending[0].metadata.as_ref(), Some(&shown));
    // As a person's screen (and the durable `pending` listing) shows it.
    assert_eq!(
        serde_json::to_value(&pending[0]).unwrap()["metadata"],
        shown
    );
    let exported = serde_json::to_string(&runner.export_state()).unwrap();

    let mut resumed = Runner::new(gated(&tool), transfers(&[]))
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(hookwire::agent::StateSeal::unsigned());
    resumed
        .import_state(serde_json::from_str(&exported).unwrap())
        .unwrap();
    let again = resumed.approvals().pending();
    assert_eq!(again[0].metadata.as_ref(), Some(&shown));
    assert_eq!(again[0].id(), pending[0].id());
}

#[tokio::test]
async fn an_edited_approval_runs_the_tool_with_the_edited_arguments() {
    for loop_gate in [false, true] {
        let tool = TransferTool::default();
        let approver = FnApprover::new(|req| {
            // The person lowers the amount of a large transfer.
            if req.get("amount").and_then(Value::as_u64) > Some(100) {
                ApprovalDecision::ApproveWith(json!({"to": req.get("to").unwrap(), "amount": 100}))
            } else {
                ApprovalDecision::Approve
            }
        });
        let model = transfers(&[
            ("c1", json!({"to": "acme", "amount": 500})),
            ("c2", json!({"to": "bob", "amount": 5})),
        ]);
        let (out, history) = run_once(&tool, loop_gate, approver, model).await;
        let gate = if loop_gate {
            "approver"
        } else {
            "needs_approval"
        };
        // The tool received the edit, and the model reads its result.
        assert_eq!(*tool.received.lock().unwrap(), ["acme 100", "bob 5"]);
        assert_eq!(
            tool_results(&history),
            ["sent 100 to acme", "sent 5 to bob"]
        );
        // The trace keeps what the model sent, what the tool received and
        // that the approver edited it; the other call is untouched.
        assert_eq!(
            calls(&out),
            [
                (
                    json!({"to": "acme", "amount": 500}),
                    Some(json!({"to": "acme", "amount": 100})),
                    vec![(gate.to_owned(), true, true)]
                ),
                (
                    json!({"to": "bob", "amount": 5}),
                    None,
                    vec![(gate.to_owned(), true, false)]
                ),
            ],
            "loop gate: {loop_gate}"
        );
        let text = out.trace_text();
        assert!(
            text.contains(&format!(
                "(approved with edited arguments at {gate} by asker)"
            )),
            "{text}"
        );
    }
}

#[tokio::test]
async fn a_deferred_call_approved_with_edits_runs_only_the_edited_call() {
    let tool = TransferTool::default();
    let approvals = Approvals::new(DeferAll);
    let mut runner = Runner::new(
        gated(&tool),
        transfers(&[
            ("c1", json!({"to": "mallory", "amount": 900})),
            ("c2", json!({"to": "bob", "amount": 5})),
        ]),
    )
    .with_approvals(approvals.clone())
    .with_state_seal(hookwire::agent::StateSeal::unsigned());
    let out = runner.run("pay").await.unwrap();
    let RunStatus::Paused { pending } = &out.status else {
        panic!("{out:?}")
    };
    let (first, second) = (&pending[0], &pending[1]);
    assert_eq!(first.tool_use_id(), "c1");
    // Not an object: refused, nothing decided.
    let refused = approvals
        .resolve_with(&first.id(), json!([1, 2]))
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "the edited arguments for call `bank / transfer` (id `{}`) are an array, not a JSON \
             object of the tool's arguments: give an object such as `{{\"amount\": 5}}`; nothing \
             was decided",
            first.id()
        )
    );
    assert!(matches!(refused, ResolveError::NotAnObject { .. }));
    approvals
        .resolve_with(&first.id(), json!({"to": "acme", "amount": 90}))
        .unwrap();
    approvals
        .resolve(&second.id(), ApprovalDecision::Deny("no".into()))
        .unwrap();
    // The edit survives an export and an import of the state.
    let exported = serde_json::to_value(runner.export_state()).unwrap();
    assert!(
        exported
            .to_string()
            .contains(r#""decision":"approve_with""#)
    );
    runner
        .import_state(serde_json::from_value(exported).unwrap())
        .unwrap();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(*tool.received.lock().unwrap(), ["acme 90"]);
    let last: Vec<_> = calls(&out).into_iter().rev().take(2).collect();
    assert_eq!(
        last[1],
        (
            json!({"to": "mallory", "amount": 900}),
            Some(json!({"to": "acme", "amount": 90})),
            vec![("needs_approval".to_owned(), true, true)]
        )
    );
    assert_eq!(last[0].2, vec![("needs_approval".to_owned(), false, false)]);
    // The decision was used: it approves nothing else.
    assert!(approvals.resolve_with(&first.id(), json!({})).is_err());
}

#[tokio::test]
async fn an_invalid_edit_is_refused_and_the_tool_never_runs() {
    let tool = TransferTool::default();
    let edits = [
        (
            json!({"to": "acme"}),
            "the approver's edited arguments for `transfer` were refused, so the call did not \
             run: invalid arguments for tool `transfer`: missing field `amount`",
        ),
        (
            json!({"to": "acme", "amount": -5}),
            "the approver's edited arguments for `transfer` were refused, so the call did not \
             run: invalid arguments for tool `transfer` at `amount`: invalid value: integer `-5`, \
             expected u64",
        ),
        (
            json!("send it all"),
            "the approver's edited arguments for `transfer` were refused, so the call did not \
             run: arguments must be a JSON object, got a string",
        ),
    ];
    for (edit, expected) in edits {
        for loop_gate in [false, true] {
            let answer = edit.clone();
            let approver = FnApprover::new(move |_| ApprovalDecision::ApproveWith(answer.clone()));
            let model = transfers(&[("c1", json!({"to": "acme", "amount": 5}))]);
            let (out, history) = run_once(&tool, loop_gate, approver, model).await;
            assert_eq!(
                tool_results(&history),
                [format!(
                    "tool call denied by `{}`: {expected}",
                    if loop_gate {
                        "approver"
                    } else {
                        "needs_approval"
                    }
                )],
                "edit {edit}, loop gate {loop_gate}"
            );
            assert!(!calls(&out)[0].2[0].1, "the call was not approved");
            assert!(
                calls(&out)[0].2[0].2,
                "the note says the arguments were edited"
            );
            assert!(out.trace_text().contains("(edit refused at"));
        }
    }
    assert!(tool.received.lock().unwrap().is_empty());
}

/// A hand-written innermost handler that does not say what its tool's
/// arguments are: an edit cannot be checked there, so it is refused.
struct Opaque;

impl Handler for Opaque {
    async fn call(&self, _cx: &mut ToolContext, _args: ToolArgs) -> Outcome {
        Ok(ToolResult::text("ran"))
    }
}

#[tokio::test]
async fn an_edit_is_refused_where_the_tools_argument_type_is_unknown() {
    let definition = TransferTool::default().definition();
    let tools = Router::new().route(
        definition,
        ToolSource::Function,
        chain!(NeedsApproval::new(true) => Opaque),
    );
    let approver =
        FnApprover::new(|_| ApprovalDecision::ApproveWith(json!({"to": "x", "amount": 1})));
    let mut runner = Runner::new(
        test_agent("bank", tools),
        transfers(&[("c1", json!({"to": "acme", "amount": 5}))]),
    )
    .with_approvals(Approvals::new(approver));
    let out = runner.run("pay").await.unwrap();
    assert_eq!(
        tool_results(runner.history()),
        [
            "tool call denied by `needs_approval`: the approver's edited arguments for `transfer` \
          were refused, so the call did not run: the argument type of `transfer` is not known \
          at this gate, so an edit cannot be checked"
        ]
    );
    assert_eq!(
        calls(&out)[0].2,
        [("needs_approval".to_owned(), false, true)]
    );
}

/// One run of `model` with `approver`: through the loop's gate (a run that
/// requires approval for `transfer`) or through the chain's.
async fn run_once(
    tool: &TransferTool,
    loop_gate: bool,
    approver: impl Approver + 'static,
    model: ScriptedModel,
) -> (RunOutput, Vec<Message>) {
    if loop_gate {
        let mut runner = Runner::new(plain(tool), model).with_approvals(Approvals::new(approver));
        runner.approvals().require("transfer");
        let out = runner.run("pay").await.unwrap();
        (out, runner.history().to_vec())
    } else {
        let mut runner = Runner::new(gated(tool), model).with_approvals(Approvals::new(approver));
        let out = runner.run("pay").await.unwrap();
        (out, runner.history().to_vec())
    }
}
