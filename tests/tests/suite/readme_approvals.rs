//! The README's "Approvals" example, verbatim: the run pauses, the
//! pending call shows its path and arguments, a decision by id runs it,
//! and a second decision for it is refused.
#![allow(clippy::unwrap_used, clippy::panic)]

use hookwire::agent::{RunStatus, Runner};
use hookwire::approval::{ApprovalDecision, DeferAll};
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
    let mut session = Runner::new(Shop::new(), model).with_asker(DeferAll);
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
