//! Approvals in the trace: every call that went through a gate says how it
//! was decided (approved by whom, sticky or not, given while it waited, or
//! denied by which gate), and an approver reads the arguments through
//! `&self` (`ApprovalRequest::get`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common::test_agent;
use crate::approval_identity::{Ledger, pay_tool};

use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::agent::{RunOutput, RunStatus, Runner, TraceEvent};
use hookwire::approval::{
    ApprovalDecision, ApprovalNote, Approvals, DecidedBy, DeferAll, FnApprover, NeedsApproval,
    ResolveError, Sticky,
};
use hookwire::model::{ScriptedModel, ScriptedToolCall, Turn};
use hookwire::{Decision, Router, Tool, ToolHandler, ToolSource, chain};
use serde_json::json;

fn shop(ledger: &Ledger) -> impl hookwire::agent::Agent + 'static {
    let pay = pay_tool(ledger.clone(), "shop");
    let tools = Router::new().route(
        pay.definition(),
        ToolSource::Function,
        chain!(NeedsApproval::new(true) => ToolHandler(pay)),
    );
    test_agent("shop", tools)
}

/// `pay` to `to` for each amount, one step each, then "done".
fn payments(to: &str, amounts: &[u64]) -> ScriptedModel {
    let mut turns: Vec<Turn> = amounts
        .iter()
        .enumerate()
        .map(|(n, amount)| Turn {
            tool_calls: vec![ScriptedToolCall {
                id: Some(format!("c{n}")),
                name: "pay".into(),
                arguments: json!({"to": to, "amount": amount}),
            }],
            ..Turn::default()
        })
        .collect();
    turns.push(Turn::text("done"));
    ScriptedModel::from_turns(turns)
}

/// Each tool call's `(decision, approvals)`, in order.
fn gates(out: &RunOutput) -> Vec<(String, Vec<ApprovalNote>)> {
    out.trace
        .iter()
        .filter_map(|event| match event {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    decision,
                    approvals,
                    ..
                } = &**call;
                Some((decision.to_string(), approvals.clone()))
            }
            _ => None,
        })
        .collect()
}

fn note(gate: &str, approved: bool, by: DecidedBy) -> ApprovalNote {
    serde_json::from_value(json!({"gate": gate, "approved": approved, "by": by})).unwrap()
}

/// A call that passed `needs_approval` alone: `allowed` or `denied` there,
/// decided `by`.
fn gated(decision: &str, by: DecidedBy) -> (String, Vec<ApprovalNote>) {
    let approved = decision == "allowed";
    (
        decision.to_owned(),
        vec![note("needs_approval", approved, by)],
    )
}

/// `shop` paying the vendor 7, then 8, every call deferred: the runner,
/// paused on the first call, its approvals, and the call's decision id.
async fn paused_on_the_first_of_two(
    ledger: &Ledger,
) -> (
    Runner<impl hookwire::agent::Agent + 'static>,
    Approvals,
    String,
) {
    let approvals = Approvals::new(DeferAll);
    let mut runner =
        Runner::new(shop(ledger), payments("vendor", &[7, 8])).with_approvals(approvals.clone());
    let out = runner.run("pay").await.unwrap();
    let RunStatus::Paused { pending } = &out.status else {
        panic!("{out:?}")
    };
    let id = pending[0].id();
    (runner, approvals, id)
}

#[tokio::test]
async fn an_approver_reads_the_arguments_through_a_shared_reference() {
    let ledger = Ledger::default();
    // The approver of the README: small payments pass, others do not.
    let approver = FnApprover::new(|req| match req.get("amount").and_then(|a| a.as_u64()) {
        Some(amount) if amount <= 100 => ApprovalDecision::Approve,
        _ => ApprovalDecision::Deny(format!(
            "{} is over the limit",
            req.arguments_value()["amount"]
        )),
    });
    let mut runner = Runner::new(shop(&ledger), payments("vendor", &[40, 4000]))
        .with_approvals(Approvals::new(approver));
    let out = runner.run("pay").await.unwrap();
    assert_eq!(*ledger.lock().unwrap(), ["shop paid vendor 40"]);
    assert_eq!(
        gates(&out),
        [
            gated("allowed", DecidedBy::Asker),
            gated("denied", DecidedBy::Asker)
        ]
    );
    let text = out.trace_text();
    assert!(
        text.contains("-> allowed (approved at needs_approval by asker)"),
        "{text}"
    );
    assert!(
        text.contains("-> denied by needs_approval (denied at needs_approval by asker)"),
        "{text}"
    );
}

#[tokio::test]
async fn the_trace_tells_always_sticky_and_no_approver_apart() {
    let ledger = Ledger::default();
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = asked.clone();
    let always = FnApprover::new(move |_| {
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        ApprovalDecision::AlwaysApprove
    });
    let mut runner = Runner::new(shop(&ledger), payments("vendor", &[1, 2]))
        .with_approvals(Approvals::new(always));
    let out = runner.run("pay").await.unwrap();
    // The approver's "always" is kept: the second call is not asked about.
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(
        *ledger.lock().unwrap(),
        ["shop paid vendor 1", "shop paid vendor 2"]
    );
    assert_eq!(
        gates(&out),
        [
            gated("allowed", DecidedBy::AskerAlways),
            gated("allowed", DecidedBy::Sticky),
        ]
    );
    assert!(
        out.trace_text()
            .contains("(approved at needs_approval by sticky decision)")
    );

    // No approver at all: denied, and the trace says so.
    let mut runner = Runner::new(shop(&ledger), payments("vendor", &[3]));
    let out = runner.run("pay").await.unwrap();
    assert_eq!(gates(&out), [gated("denied", DecidedBy::NoApprover)]);
    assert_eq!(ledger.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_deferred_call_shows_the_wait_then_the_decision_given() {
    let ledger = Ledger::default();
    let approvals = Approvals::new(DeferAll);
    let mut runner =
        Runner::new(shop(&ledger), payments("vendor", &[7])).with_approvals(approvals.clone());
    let out = runner.run("pay").await.unwrap();
    let RunStatus::Paused { pending } = &out.status else {
        panic!("{out:?}")
    };
    assert_eq!(gates(&out), [gated("pending", DecidedBy::Deferred)]);
    approvals
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(*ledger.lock().unwrap(), ["shop paid vendor 7"]);
    let last = gates(&out).pop().unwrap();
    assert_eq!(last, gated("allowed", DecidedBy::Resolved));
}

/// Asks about every call (the loop's own gate).
struct AskAll;

impl LifecycleHooks for AskAll {
    async fn pre_tool_use(&self, _cx: &mut PreToolUse<'_>) -> Decision {
        Decision::Ask("a person looks at every call".into())
    }
}

#[tokio::test]
async fn every_gate_of_a_call_is_noted_outermost_first() {
    let ledger = Ledger::default();
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = asked.clone();
    let approver = FnApprover::new(move |_| {
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        ApprovalDecision::Approve
    });
    let mut runner = Runner::new(shop(&ledger), payments("vendor", &[5]))
        .with_hooks(AskAll)
        .with_approvals(Approvals::new(approver));
    let out = runner.run("pay").await.unwrap();
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert_eq!(
        gates(&out),
        [(
            "allowed".to_owned(),
            vec![
                note("approver", true, DecidedBy::Asker),
                note("needs_approval", true, DecidedBy::Asker),
            ]
        )]
    );
    // A call no gate looked at has no note.
    let free = Router::new().tool(pay_tool(ledger.clone(), "free"));
    let mut runner = Runner::new(test_agent("free", free), payments("x", &[1]));
    let out = runner.run("pay").await.unwrap();
    assert_eq!(gates(&out), [("allowed".to_owned(), vec![])]);
}

/// A sticky decision given for a waiting call (`resolve`) decides the
/// call, and the tool's later calls; `defer` decides nothing and is
/// refused.
#[tokio::test]
async fn a_sticky_decision_given_while_waiting_decides_the_call_and_the_later_ones() {
    let ledger = Ledger::default();
    let (mut runner, approvals, id) = paused_on_the_first_of_two(&ledger).await;
    let refused = approvals.resolve(&id, ApprovalDecision::Defer);
    assert!(
        matches!(
            &refused,
            Err(ResolveError::Undecided {
                decision: "defer",
                ..
            })
        ),
        "{refused:?}"
    );
    assert_eq!(
        approvals.pending().len(),
        1,
        "a refused decision changes nothing"
    );
    assert!(approvals.state().sticky.is_empty());
    approvals
        .resolve(&id, ApprovalDecision::AlwaysApprove)
        .unwrap();
    assert_eq!(approvals.state().sticky["pay"], Sticky::AlwaysApprove);
    // The call runs once, and the next one is not deferred: the run ends.
    let out = runner.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(
        *ledger.lock().unwrap(),
        ["shop paid vendor 7", "shop paid vendor 8"]
    );
    assert_eq!(
        gates(&out),
        [
            gated("allowed", DecidedBy::Sticky),
            gated("allowed", DecidedBy::Sticky)
        ]
    );
    let state = approvals.state();
    assert!(
        state.pending.is_empty() && state.resolved.is_empty(),
        "{state:?}"
    );
    // Nothing waits any more: a decision for the call is refused.
    assert!(approvals.resolve(&id, ApprovalDecision::Approve).is_err());
}

#[tokio::test]
async fn always_deny_given_while_waiting_denies_the_call_and_the_later_ones() {
    let ledger = Ledger::default();
    let (mut runner, approvals, id) = paused_on_the_first_of_two(&ledger).await;
    approvals
        .resolve(&id, ApprovalDecision::AlwaysDeny)
        .unwrap();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert!(ledger.lock().unwrap().is_empty());
    assert_eq!(approvals.state().sticky["pay"], Sticky::AlwaysDeny);
    assert_eq!(
        gates(&out),
        [
            gated("denied", DecidedBy::Sticky),
            gated("denied", DecidedBy::Sticky)
        ]
    );
}
