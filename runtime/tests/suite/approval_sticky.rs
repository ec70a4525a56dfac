//! Human approval: per-tool `needs_approval` as a chain hook (bool or
//! predicate), the programmatic approver, sticky always/never, fail closed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::sync::{Arc, Mutex};

use agent_common::test_agent;
use hookwire::agent::Runner;
use hookwire::approval::{
    ApprovalDecision, Approvals, FnApprover, NeedsApproval, Sticky, TerminalApprover,
};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{FnTool, Router, Tool, ToolHandler, ToolSource, chain};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Path {
    path: String,
}

type Log = Arc<Mutex<Vec<String>>>;

fn tools(ran: Log) -> impl hookwire::ToolSet {
    let r1 = ran.clone();
    let rm = FnTool::new("rm", "Removes a file.", move |p: Path| {
        let r = r1.clone();
        async move {
            r.lock().unwrap().push(format!("rm {}", p.path));
            format!("removed {}", p.path)
        }
    });
    let ls = FnTool::new("ls", "Lists a folder.", move |p: Path| {
        let r = ran.clone();
        async move {
            r.lock().unwrap().push(format!("ls {}", p.path));
            format!("listed {}", p.path)
        }
    });
    Router::new()
        .route(
            rm.definition(),
            ToolSource::Function,
            chain!(NeedsApproval::new(true) => ToolHandler(rm)),
        )
        .route(
            ls.definition(),
            ToolSource::Function,
            // Only paths outside /tmp need approval.
            chain!(NeedsApproval::new(|args: &Value| {
                !args["path"].as_str().unwrap_or("").starts_with("/tmp")
            }) => ToolHandler(ls)),
        )
}

use crate::agent_common::tool_results as results;

#[tokio::test]
async fn needs_approval_asks_by_rule_and_sticky_answers_stick() {
    let ran: Log = Arc::default();
    let asked: Log = Arc::default();
    let a = asked.clone();
    // The approver says "never" to rm and "always" to ls, and records each question.
    let approver = FnApprover::new(move |req| {
        a.lock().unwrap().push(format!(
            "{} {}",
            req.tool,
            req.arguments.to_value().unwrap()["path"]
        ));
        if req.tool == "rm" {
            ApprovalDecision::AlwaysDeny
        } else {
            ApprovalDecision::AlwaysApprove
        }
    });
    let model = ScriptedModel::from_turns([
        Turn::call("ls", json!({"path": "/tmp/x"})).and_call("ls", json!({"path": "/etc"})),
        Turn::call("rm", json!({"path": "/a"})),
        Turn::call("rm", json!({"path": "/b"})).and_call("ls", json!({"path": "/home"})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(test_agent("files", tools(ran.clone())), model)
        .with_max_parallel(1)
        .with_approvals(Approvals::new(approver));
    runner.run("clean up").await.unwrap();
    assert_eq!(
        *asked.lock().unwrap(),
        ["ls \"/etc\"", "rm \"/a\""],
        "asked once per tool, never for /tmp"
    );
    assert_eq!(*ran.lock().unwrap(), ["ls /tmp/x", "ls /etc", "ls /home"]);
    assert_eq!(
        results(runner.history()),
        [
            "listed /tmp/x",
            "listed /etc",
            "tool call denied by `needs_approval`: calls of `rm` are always denied",
            "tool call denied by `needs_approval`: calls of `rm` are always denied",
            "listed /home",
        ]
    );
    let state = runner.approvals().state();
    assert_eq!(state.sticky["rm"], Sticky::AlwaysDeny);
    assert_eq!(state.sticky["ls"], Sticky::AlwaysApprove);
}

#[tokio::test]
async fn without_an_approver_a_gated_call_is_denied() {
    let ran: Log = Arc::default();
    let model =
        ScriptedModel::from_turns([Turn::call("rm", json!({"path": "/a"})), Turn::text("ok")]);
    let mut runner = Runner::new(test_agent("files", tools(ran.clone())), model);
    runner.run("x").await.unwrap();
    assert!(ran.lock().unwrap().is_empty());
    assert_eq!(
        results(runner.history()),
        [
            "tool call denied by `needs_approval`: approval required (`rm` needs approval) but no approver is configured"
        ]
    );
}

#[tokio::test]
async fn arguments_that_do_not_parse_need_approval_even_when_the_rule_says_no() {
    let ran: Log = Arc::default();
    let asked: Log = Arc::default();
    let a = asked.clone();
    let model = ScriptedModel::from_turns([
        // `ls` of /tmp needs no approval, but these arguments do not parse.
        Turn::call("ls", json!("{\"path\": \"/tmp/x\"")),
        Turn::text("ok"),
    ]);
    let mut runner = Runner::new(test_agent("files", tools(ran.clone())), model).with_approvals(
        Approvals::new(FnApprover::new(move |req| {
            a.lock().unwrap().push(req.reason.to_owned());
            ApprovalDecision::Deny("not without valid arguments".into())
        })),
    );
    runner.run("x").await.unwrap();
    assert_eq!(
        *asked.lock().unwrap(),
        ["the arguments of `ls` do not parse, so the call needs approval"]
    );
    assert!(ran.lock().unwrap().is_empty());
    assert_eq!(
        results(runner.history()),
        ["tool call denied by `needs_approval`: not without valid arguments"]
    );
}

/// `Approvals::require` gates a tool at the agent level, over a chain rule
/// that would let the call through (`ls` of /tmp needs no approval in its
/// chain), and a preset sticky decision answers without asking (`rm` is
/// gated in its chain; the approver, which denies everything, is never asked).
#[tokio::test]
async fn approval_settings_gate_tools_at_the_agent_level_and_preset_sticky_decisions_apply() {
    let ran: Log = Arc::default();
    let asked: Log = Arc::default();
    let a = asked.clone();
    let approvals = Approvals::new(FnApprover::new(move |req| {
        a.lock().unwrap().push(format!(
            "{} {}: {}",
            req.tool,
            req.arguments.to_value().unwrap()["path"],
            req.reason
        ));
        ApprovalDecision::Deny(format!("no {} today", req.tool))
    }));
    approvals.require("ls");
    approvals.set_sticky("rm", Sticky::AlwaysApprove);
    let model = ScriptedModel::from_turns([
        Turn::call("ls", json!({"path": "/tmp"})).and_call("rm", json!({"path": "/z"})),
        Turn::text("ok"),
    ]);
    let mut runner = Runner::new(test_agent("files", tools(ran.clone())), model)
        .with_max_parallel(1)
        .with_approvals(approvals.clone());
    let out = runner.run("x").await.unwrap();
    assert_eq!(out.text, "ok");
    assert_eq!(
        *asked.lock().unwrap(),
        ["ls \"/tmp\": `ls` needs approval"],
        "asked about ls (agent-level setting), never about rm (sticky)"
    );
    assert_eq!(*ran.lock().unwrap(), ["rm /z"], "ls was denied, rm ran");
    assert_eq!(
        results(runner.history()),
        ["tool call denied by `approver`: no ls today", "removed /z"],
        "what the model read"
    );
    let text = out.trace_text();
    assert!(
        text.contains("tool ls (function) {\"path\":\"/tmp\"} -> denied"),
        "{text}"
    );
}

/// An approver asked directly by a chain's gate (no `Approvals`: a
/// context of its own) keeps nothing: its "always" decides the call shown,
/// and the next call is asked again; its "later" does not run the call.
#[tokio::test]
async fn a_bare_approvers_sticky_answers_decide_only_the_call_shown() {
    use hookwire::approval::PENDING_REASON;
    use hookwire::{Handler, ToolArgs, ToolContext, ToolError};

    let ran: Log = Arc::default();
    let r = ran.clone();
    let rm = FnTool::new("rm", "Removes a file.", move |p: Path| {
        let r = r.clone();
        async move {
            r.lock().unwrap().push(p.path);
            "removed"
        }
    });
    let gated = chain!(NeedsApproval::new(true) => ToolHandler(rm));
    // The answers, in the order the approver gives them.
    let answers = Arc::new(Mutex::new(vec![
        ApprovalDecision::AlwaysApprove,
        ApprovalDecision::Deny("not this one".into()),
        ApprovalDecision::AlwaysDeny,
        ApprovalDecision::Approve,
        ApprovalDecision::Defer,
        ApprovalDecision::Approve,
    ]));
    let next = answers.clone();
    let approver: Arc<dyn hookwire::approval::Approver> =
        Arc::new(FnApprover::new(move |_| next.lock().unwrap().remove(0)));
    let mut outcomes = Vec::new();
    for path in ["/a", "/b", "/c", "/d", "/e", "/f"] {
        let mut cx = ToolContext::new("rm", ToolSource::Function, "call-1")
            .with_approver(Some(approver.clone()));
        let args = ToolArgs::from_value(json!({ "path": path })).unwrap();
        outcomes.push(match gated.call(&mut cx, args).await {
            Ok(_) => "ran".to_owned(),
            Err(ToolError::Denied { reason, .. }) => reason,
            Err(other) => panic!("{other:?}"),
        });
    }
    assert!(
        answers.lock().unwrap().is_empty(),
        "every call was asked about"
    );
    assert_eq!(
        outcomes,
        [
            "ran",
            "not this one",
            "calls of `rm` are always denied",
            "ran",
            PENDING_REASON,
            "ran",
        ]
    );
    assert_eq!(*ran.lock().unwrap(), ["/a", "/d", "/f"]);
}

#[test]
fn terminal_answers_parse() {
    assert_eq!(
        TerminalApprover::parse_answer("y\n"),
        Some(ApprovalDecision::Approve)
    );
    assert_eq!(
        TerminalApprover::parse_answer(" ALWAYS "),
        Some(ApprovalDecision::AlwaysApprove)
    );
    assert_eq!(
        TerminalApprover::parse_answer("e"),
        Some(ApprovalDecision::AlwaysDeny)
    );
    assert!(matches!(
        TerminalApprover::parse_answer("no"),
        Some(ApprovalDecision::Deny(_))
    ));
    assert_eq!(TerminalApprover::parse_answer("maybe"), None);
}
