//! The Guard-Desk card's lifecycle hooks fail by their `on_failure` and
//! `timeout_ms`.

use super::*;

/// What the model read for each tool call, in call order.
fn tool_results(history: &[Message]) -> Vec<(String, String, bool)> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool { name, result, .. } => {
                Some((name.to_string(), result.text_content(), result.is_error))
            }
            _ => None,
        })
        .collect()
}

/// The Guard-Desk card's lifecycle hooks fail, each by its entry's
/// `on_failure` and `timeout_ms`: `Hang` on `add_one` times out in
/// `pre_tool_use` and, closed by default there, denies the call naming
/// itself; `Hang` on `project_status` is open, so the call runs with the
/// model's arguments (not the hook's rewrite); `Explode` panics in
/// `post_tool_use` and, closed, turns the result into the error the model
/// reads. `AnswerCheck`, matched to `step:final`, sees only the final answer.
#[test]
fn the_guard_desks_lifecycle_hooks_fail_by_their_policy_and_timeout() {
    use hookwire::model::{ScriptedModel, Turn};
    runtime(true).block_on(async {
        let model = ScriptedModel::from_turns([
            Turn::call("add_one", serde_json::json!({"x": 1}))
                .and_call("project_status", serde_json::json!({"project": "bridge"})),
            Turn::text("done"),
            Turn::text("checked"),
        ]);
        let mut runner = Runner::new(agents::GuardDesk::new(), model);
        let out = runner.run("go").await.unwrap();
        // `AnswerCheck` (`match: "step:final"`) saw the final answer and
        // asked once more; it saw no tool call (it would have denied it).
        assert_eq!(out.text, "checked");
        assert!(
            runner.history().iter().any(|m| m.text() == "check the answer"),
            "{:?}",
            runner.history()
        );
        assert_eq!(
            tool_results(runner.history()),
            [
                (
                    "add_one".to_owned(),
                    "tool call denied by `hang`: hook `hang` failed: pre_tool_use timed out after 50 ms"
                        .to_owned(),
                    true
                ),
                (
                    "project_status".to_owned(),
                    "hook `explode` failed: post_tool_use panicked: exploded".to_owned(),
                    true
                ),
            ]
        );
        // `project_status` ran, with the model's project: the open `Hang`'s
        // rewrite was undone.
        let received = out.trace.iter().find_map(|e| match e {
            TraceEvent::ToolCall(call) if &*call.tool == "project_status" => {
                let hookwire::agent::ToolCallEvent { received, .. } = &**call;
                Some(received.clone())
            }
            _ => None,
        });
        assert_eq!(received, Some(None), "the tool got what the model sent");
    });
}
