//! The "Approvals" example of docs/approvals.md, verbatim: the run pauses, the
//! pending call shows its path and arguments, a decision by id runs it,
//! and a second decision for it is refused.
#![allow(clippy::unwrap_used, clippy::panic)]

use hookwire::agent::{RunStatus, Runner};
use hookwire::approval::{ApprovalDecision, Approvals, DeferAll};
use hookwire::model::{ScriptedModel, Turn};

/// Pays a vendor.
#[hookwire::tool(needs_approval)]
fn pay(to: String, amount: u64) -> String {
    format!("paid {amount} to {to}")
}

/// Pays.
#[hookwire::agent(name = "shop", function_tools = [pay])]
pub struct Shop;

#[tokio::test]
async fn the_readme_approval_example_runs() {
    let model = ScriptedModel::from_turns([
        Turn::call(
            "pay",
            hookwire::serde_json::json!({"to": "acme", "amount": 10}),
        ),
        Turn::text("paid"),
    ]);
    let mut session = Runner::new(Shop::new(), model).with_approvals(Approvals::new(DeferAll));
    let out = session.run("pay acme").await.unwrap();
    let RunStatus::Paused { pending } = out.status else {
        panic!("{:?}", out.status)
    };
    assert_eq!(pending[0].path(), "shop / pay");
    assert_eq!(pending[0].arguments["to"], "acme"); // what the person sees
    // The decision names the call's identity, by its `id`.
    session
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    assert_eq!(session.resume().await.unwrap().text, "paid");
    // A decision for a call that does not wait is refused, never kept.
    assert!(
        session
            .approvals()
            .resolve(&pending[0].id(), ApprovalDecision::Approve)
            .is_err()
    );
}

/// Refunds a customer.
#[hookwire::tool(approval_metadata = refund_context)]
fn refund(to: String, amount: u64) -> String {
    format!("refunded {amount} to {to}")
}

fn refund_context(args: &hookwire::declare::ArgsOf<refund>) -> hookwire::serde_json::Value {
    hookwire::serde_json::json!({"customer": args.to})
}

/// Wires money; every call is asked about.
#[hookwire::tool(needs_approval, approval_metadata = wire_context)]
fn wire(to: String, amount: u64) -> String {
    format!("wired {amount} to {to}")
}

fn wire_context(args: &hookwire::declare::ArgsOf<wire>) -> hookwire::serde_json::Value {
    hookwire::serde_json::json!({"large": args.amount > 100})
}

/// Refunds and wires.
#[hookwire::agent(name = "desk", function_tools = [refund, wire])]
pub struct Desk;

#[tokio::test]
async fn a_macro_tools_metadata_reaches_both_gates_and_an_edit_runs() {
    use hookwire::approval::{ApprovalDecision, FnApprover};
    use hookwire::model::Message;
    use hookwire::serde_json::json;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let noted = seen.clone();
    let approver = FnApprover::new(move |req| {
        noted
            .lock()
            .unwrap()
            .push((req.tool.to_owned(), req.metadata().cloned()));
        // Every amount is cut to 10.
        ApprovalDecision::ApproveWith(json!({"to": req.get("to").unwrap(), "amount": 10}))
    });
    let model = ScriptedModel::from_turns([
        Turn::call("refund", json!({"to": "acme", "amount": 70}))
            .and_call("wire", json!({"to": "bob", "amount": 500})),
        Turn::text("done"),
    ]);
    let mut session = Runner::new(Desk::new(), model).with_approvals(Approvals::new(approver));
    // `refund` is asked about by the loop's gate, `wire` by its own.
    session.approvals().require("refund");
    session.run("go").await.unwrap();
    let results: Vec<String> = session
        .history()
        .iter()
        .filter_map(Message::tool_result)
        .map(|r| r.text_content())
        .collect();
    assert_eq!(results, ["refunded 10 to acme", "wired 10 to bob"]);
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        seen,
        [
            ("refund".to_owned(), Some(json!({"customer": "acme"}))),
            ("wire".to_owned(), Some(json!({"large": true}))),
        ]
    );
}
