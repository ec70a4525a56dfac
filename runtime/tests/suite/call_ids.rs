//! No model call runs twice, whatever ids the model sends: ids are made
//! unique as an answer arrives, approvals left waiting by a run that ended
//! belong to no later call, and a decision for an id that is not waiting is
//! refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::sync::{Arc, Mutex};

use agent_common::test_agent;
use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::agent::{RunStatus, Runner};
use hookwire::approval::{ApprovalDecision, Approvals, FnApprover, NeedsApproval};
use hookwire::model::{ScriptedModel, ScriptedToolCall, Turn};
use hookwire::{Decision, FnTool, Router, Tool, ToolHandler, ToolSource, chain};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Amount {
    amount: i64,
}

type Log = Arc<Mutex<Vec<String>>>;

/// `pay` (side effects, no gate) and `deploy` (always needs approval); each
/// run is logged.
fn tools(ran: Log) -> impl hookwire::ToolSet {
    let r = ran.clone();
    let pay = FnTool::new("pay", "Pays.", move |a: Amount| {
        let r = r.clone();
        async move {
            r.lock().unwrap().push(format!("pay {}", a.amount));
            format!("paid {}", a.amount)
        }
    });
    let deploy = FnTool::new("deploy", "Deploys.", move |a: Amount| {
        let r = ran.clone();
        async move {
            r.lock().unwrap().push(format!("deploy {}", a.amount));
            format!("deployed {}", a.amount)
        }
    });
    Router::new().tool(pay).route(
        deploy.definition(),
        ToolSource::Function,
        chain!(NeedsApproval::new(true) => ToolHandler(deploy)),
    )
}

/// A turn whose calls carry the ids given.
fn turn(calls: &[(&str, &str, i64)]) -> Turn {
    let mut turn = Turn::default();
    for (id, name, amount) in calls {
        turn.tool_calls.push(ScriptedToolCall {
            id: Some((*id).to_owned()),
            name: (*name).to_owned(),
            arguments: json!({ "amount": amount }),
        });
    }
    turn
}

/// Records what the approver was asked, and defers everything.
fn recording_approvals(asked: Log) -> Approvals {
    Approvals::new(FnApprover::new(move |req| {
        asked
            .lock()
            .unwrap()
            .push(format!("{} {}", req.tool, req.tool_use_id));
        ApprovalDecision::Defer
    }))
}

#[tokio::test]
async fn duplicate_and_empty_ids_in_one_answer_run_each_call_once() {
    let ran: Log = Arc::default();
    let model = ScriptedModel::from_turns([
        turn(&[
            ("x", "pay", 1),
            ("x", "pay", 2),
            ("", "pay", 3),
            ("", "pay", 4),
            ("x_1", "pay", 5),
        ]),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(test_agent("payer", tools(ran.clone())), model);
    let out = runner.run("pay").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    let mut log = ran.lock().unwrap().clone();
    log.sort();
    assert_eq!(log, ["pay 1", "pay 2", "pay 3", "pay 4", "pay 5"]);
    // Each result answers the call it belongs to, under an id of its own,
    // and the model's own ids are kept where they were free.
    let history = runner.history();
    let ids: Vec<&str> = match &history[1] {
        hookwire::model::Message::Assistant { tool_calls, .. } => {
            tool_calls.iter().map(|c| &*c.id).collect()
        }
        other => panic!("expected the calls, got {other:?}"),
    };
    assert_eq!(ids, ["x", "x_1", "call_0_2", "call_0_3", "x_1_4"]);
    let answers: Vec<(String, String)> = history[2..7]
        .iter()
        .map(|m| match m {
            hookwire::model::Message::Tool {
                tool_call_id,
                result,
                ..
            } => (tool_call_id.to_string(), result.text_content()),
            other => panic!("expected a tool result, got {other:?}"),
        })
        .collect();
    let expected: Vec<(String, String)> = ids
        .iter()
        .zip(1..)
        .map(|(id, n)| ((*id).to_owned(), format!("paid {n}")))
        .collect();
    assert_eq!(answers, expected);
}

/// Stops the run at every `halt`.
struct Halt;

impl LifecycleHooks for Halt {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        if cx.tool == "pay" && cx.args.get("amount") == Some(&json!(0)) {
            Decision::Stop("halted".into())
        } else {
            Decision::Continue
        }
    }
}

#[tokio::test]
async fn an_approval_left_waiting_by_a_stopped_run_does_not_capture_a_later_call() {
    let (ran, asked): (Log, Log) = (Arc::default(), Arc::default());
    let model = ScriptedModel::from_turns([
        // The deploy waits for approval; the same step stops the run.
        turn(&[("c1", "deploy", 9), ("c2", "pay", 0)]),
        // The next run reuses `c1` for an ungated payment.
        turn(&[("c1", "pay", 7)]),
        Turn::text("paid"),
    ]);
    let mut runner = Runner::new(
        test_agent("ops", tools(ran.clone())).with_hooks(Halt),
        model,
    )
    .with_approvals(recording_approvals(asked.clone()));
    let out = runner.run("deploy").await.unwrap();
    assert!(matches!(out.status, RunStatus::Stopped { .. }), "{out:?}");
    assert!(!runner.is_paused());
    let out = runner.run("pay").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.text, "paid");
    // The payment ran once and was not taken for the waiting deploy; the
    // deploy never ran, and the approver was asked about it only.
    assert_eq!(*ran.lock().unwrap(), ["pay 7"]);
    assert_eq!(*asked.lock().unwrap(), ["deploy c1"]);
    assert!(runner.approvals().pending().is_empty());
}

#[tokio::test]
async fn a_decision_for_an_id_that_is_not_waiting_is_refused_and_changes_nothing() {
    let (ran, asked): (Log, Log) = (Arc::default(), Arc::default());
    let model = ScriptedModel::from_turns([turn(&[("zzz", "deploy", 1)]), Turn::text("done")]);
    let mut runner = Runner::new(test_agent("ops", tools(ran.clone())), model)
        .with_approvals(recording_approvals(asked.clone()));
    let before = runner.approvals().state();
    let refused = runner
        .approvals()
        .resolve("zzz", ApprovalDecision::Approve)
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("no call waits for a decision under id `zzz`")
    );
    assert_eq!(runner.approvals().state(), before);
    // The call that later gets that id is asked about, not approved.
    let out = runner.run("deploy").await.unwrap();
    assert!(matches!(out.status, RunStatus::Paused { .. }), "{out:?}");
    assert!(ran.lock().unwrap().is_empty());
    assert_eq!(*asked.lock().unwrap(), ["deploy zzz"]);
}
