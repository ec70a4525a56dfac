//! A card agent's approval asks the runner's approver, and the trace says who
//! decided.

use super::*;

#[test]
fn a_card_agents_approval_asks_the_runners_approver_and_the_trace_says_who_decided() {
    use hookwire::agent::{Runner, TraceEvent};
    use hookwire::approval::{ApprovalDecision, Approvals, DecidedBy, FnApprover};
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([
        Turn::call(
            "refund",
            serde_json::json!({"customer": "ann", "amount": 20}),
        )
        .and_call(
            "refund",
            serde_json::json!({"customer": "bob", "amount": 900}),
        ),
        Turn::text("done"),
    ]);
    // The approver reads the arguments by name.
    let approver = FnApprover::new(|req| match req.get("amount").and_then(|a| a.as_u64()) {
        Some(amount) if amount <= 50 => ApprovalDecision::Approve,
        _ => ApprovalDecision::Deny("refunds over 50 need a manager".into()),
    });
    let agent = agents::Shop::new(&shop_deps("Corner", &[]));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let out = rt
        .block_on(
            Runner::new(agent, model)
                .with_approvals(Approvals::new(approver))
                .run("refunds"),
        )
        .unwrap();
    type Gates = Vec<(String, bool, DecidedBy)>;
    let calls: Vec<(String, String, Gates)> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    decision,
                    result,
                    approvals,
                    ..
                } = &**call;
                Some((
                    decision.to_string(),
                    result.text_content(),
                    approvals
                        .iter()
                        .map(|n| (n.gate.clone(), n.approved, n.by))
                        .collect(),
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                "allowed".to_owned(),
                // `flag_risky` (`match: "meta:risk=high"`) runs on the
                // refund, whose `#[tool]` declares `meta(risk = "high")`,
                // inside `stamp`; no other tool of the card is flagged.
                "refunded 20 to ann [risky] [stamped]".to_owned(),
                vec![("needs_approval".to_owned(), true, DecidedBy::Asker)]
            ),
            (
                "denied".to_owned(),
                "tool call denied by `needs_approval`: refunds over 50 need a manager".to_owned(),
                vec![("needs_approval".to_owned(), false, DecidedBy::Asker)]
            ),
        ]
    );
}
