use super::own_chain_tests::Files;
use hookwire::agent::Runner;
use hookwire::approval::{ApprovalDecision, Approvals, FnApprover, Sticky};
use hookwire::model::{Message, ScriptedModel, Turn};
use serde_json::json;

#[tokio::test]
async fn the_runner_asks_for_a_tool_declared_rule_and_the_model_reads_the_answer() {
    let model = ScriptedModel::from_turns([
        Turn::call("delete", json!({"path": "/tmp/r1"})),
        Turn::call("delete", json!({"path": "/srv/r2"})),
        Turn::call("delete", json!({"path": "/srv/r3"})),
        Turn::text("done"),
    ]);
    // "Never" for the first call that asks: sticky, so the next is
    // denied without asking.
    let mut runner = Runner::new(Files::new(), model)
        .with_max_parallel(1)
        .with_approvals(Approvals::new(FnApprover::new(|_| {
            ApprovalDecision::AlwaysDeny
        })));
    runner
        .run("clean up")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let results: Vec<String> = runner
        .history()
        .iter()
        .filter_map(Message::tool_result)
        .map(hookwire::ToolResult::text_content)
        .collect();
    assert_eq!(
        results,
        [
            "deleted /tmp/r1",
            "tool call denied by `needs_approval`: calls of `delete` are always denied",
            "tool call denied by `needs_approval`: calls of `delete` are always denied",
        ]
    );
    assert_eq!(
        runner.approvals().state().sticky.get("delete"),
        Some(&Sticky::AlwaysDeny)
    );
}
