//! Property: over random interleavings of runs, decisions (right and
//! wrong), exports and imports and resumes, with parent and child calls
//! whose ids collide, a gated tool runs only with arguments a person
//! approved, and at most once per approval.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use hookwire::agent::{AgentTool, Runner};
use hookwire::approval::{ApprovalDecision, Approvals, DeferAll};
use hookwire::model::{Model, ScriptedModel, ScriptedToolCall, Turn};
use hookwire::{Router, Tool, ToolHandler, chain};
use proptest::prelude::*;
use serde_json::json;

use super::approval_identity::{Ledger, pay_tool};
use crate::agent_common::test_agent;

/// `pmo` (gated `pay`, and the child `ny` with its own gated `pay`).
fn pmo(ledger: &Ledger, child: Arc<dyn Model>) -> impl hookwire::agent::Agent + 'static {
    let f = hookwire::ToolSource::Function;
    let (ny_pay, pmo_pay) = (
        pay_tool(ledger.clone(), "ny"),
        pay_tool(ledger.clone(), "pmo"),
    );
    let ny = test_agent(
        "ny",
        Router::new().route(
            ny_pay.definition(),
            f,
            chain!(hookwire::approval::NeedsApproval::new(true) => ToolHandler(ny_pay.clone())),
        ),
    );
    test_agent(
        "pmo",
        Router::new()
            .route(
                pmo_pay.definition(),
                f,
                chain!(hookwire::approval::NeedsApproval::new(true) => ToolHandler(pmo_pay.clone())),
            )
            .tool(AgentTool::new(ny, child)),
    )
}

#[derive(Debug, Clone)]
enum Op {
    Run,
    Approve(bool),
    WrongDecision,
    ExportImport,
    Resume,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Run),
        any::<bool>().prop_map(Op::Approve),
        Just(Op::WrongDecision),
        Just(Op::ExportImport),
        Just(Op::Resume),
    ]
}

/// One model call: an id that collides often, a tool, arguments.
fn scripted_call(child: bool) -> impl Strategy<Value = ScriptedToolCall> {
    let tools: &'static [&'static str] = if child {
        &["pay"]
    } else {
        &["pay", "agent__ny"]
    };
    (
        prop::sample::select(vec!["", "c1", "c2"]),
        prop::sample::select(tools.to_vec()),
        prop::sample::select(vec!["acme", "mallory"]),
        0u64..3,
    )
        .prop_map(|(id, tool, to, amount)| ScriptedToolCall {
            id: Some(id.to_owned()),
            name: tool.to_owned(),
            arguments: if tool == "pay" {
                json!({"to": to, "amount": amount})
            } else {
                json!({"message": format!("pay {to}")})
            },
        })
}

fn turns(child: bool) -> impl Strategy<Value = Vec<Turn>> {
    prop::collection::vec(
        prop_oneof![
            1 => Just(Turn::text("done")),
            3 => prop::collection::vec(scripted_call(child), 1..4).prop_map(|calls| Turn {
                tool_calls: calls,
                ..Turn::default()
            }),
        ],
        1..6,
    )
}

async fn play(parent: Vec<Turn>, child: Vec<Turn>, ops: Vec<Op>) -> (Vec<String>, Vec<String>) {
    let ledger: Ledger = Arc::default();
    let parent: Arc<dyn Model> = Arc::new(ScriptedModel::from_turns(parent));
    let child: Arc<dyn Model> = Arc::new(ScriptedModel::from_turns(child));
    let fresh = || {
        Runner::new(pmo(&ledger, child.clone()), parent.clone())
            .with_approvals(Approvals::new(DeferAll))
            .with_state_seal(hookwire::agent::StateSeal::unsigned())
            .with_correlation_id("s")
    };
    let mut runner = fresh();
    let mut approved = Vec::new();
    for op in ops {
        match op {
            Op::Run if !runner.is_paused() => {
                let _ = runner.run("go").await;
            }
            Op::Run => {}
            Op::Approve(yes) => {
                for p in runner.approvals().pending() {
                    let decision = if yes {
                        approved.push(format!(
                            "{} paid {} {}",
                            p.agent(),
                            p.arguments["to"].as_str().unwrap_or("?"),
                            p.arguments["amount"]
                        ));
                        ApprovalDecision::Approve
                    } else {
                        ApprovalDecision::Deny("no".into())
                    };
                    runner.approvals().resolve(&p.id(), decision).unwrap();
                }
            }
            Op::WrongDecision => {
                for wrong in ["", "c1", "call_0_0"] {
                    assert!(
                        runner
                            .approvals()
                            .resolve(wrong, ApprovalDecision::Approve)
                            .is_err()
                    );
                }
            }
            Op::ExportImport => {
                let state = runner.export_state();
                let mut next = fresh();
                next.import_state(state).unwrap();
                runner = next;
            }
            Op::Resume => {
                let _ = runner.resume().await;
            }
        }
    }
    let paid = ledger.lock().unwrap().clone();
    (paid, approved)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_gated_tool_runs_only_as_approved_and_once_per_approval(
        parent in turns(false),
        child in turns(true),
        ops in prop::collection::vec(op(), 1..14),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let (paid, mut approved) = rt.block_on(play(parent, child, ops));
        // Every payment is one approval's, with the arguments shown; none
        // is used twice.
        for entry in &paid {
            let at = approved.iter().position(|a| a == entry);
            prop_assert!(at.is_some(), "{entry} ran without an approval of exactly it; approved: {approved:?}");
            if let Some(at) = at {
                approved.swap_remove(at);
            }
        }
    }
}
