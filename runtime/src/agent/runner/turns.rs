//! Whether a history is a conversation every provider accepts: each
//! assistant turn's tool calls are answered by tool messages right after
//! it, each once, and no tool message answers a call that is not there.
//! The loop keeps its histories so (a step joins the history with its
//! results, or not at all); an imported state is checked.

use super::{RunState, StateError};
use crate::model::Message;

impl RunState {
    /// Checks the state's histories: its own (whose last turn's calls may
    /// wait, when the state is paused), its child agents' and, down the
    /// tree, those of its paused child runs.
    pub(super) fn check_histories(&self) -> Result<(), StateError> {
        let bad = |what: String, why: String| StateError::History { what, why };
        answered(&self.history, self.pending_step.is_some())
            .map_err(|why| bad("history".into(), why))?;
        for (tool, history) in &self.children {
            answered(history, false).map_err(|why| bad(format!("history of `{tool}`"), why))?;
        }
        for (id, child) in &self.paused_children {
            child.state.check_histories().map_err(|e| match e {
                StateError::History { what, why } => {
                    bad(format!("paused child run of call `{id}`: {what}"), why)
                }
                other => other,
            })?;
        }
        Ok(())
    }
}

/// Checks that every tool call in `history` is answered by a tool message
/// right after its turn, once, and that every tool message answers a call
/// of the turn before it; the last turn's calls may be unanswered when
/// `paused` (they wait for approval). Why not, when not.
pub(crate) fn answered(history: &[Message], paused: bool) -> Result<(), String> {
    // The calls of the turn at `at` that no tool message answered yet.
    let mut open: Vec<&str> = Vec::new();
    let mut at = 0;
    for (i, message) in history.iter().enumerate() {
        if let Message::Tool { tool_call_id, .. } = message {
            match open.iter().position(|id| **id == **tool_call_id) {
                Some(found) => {
                    open.swap_remove(found);
                }
                None => {
                    return Err(format!(
                        "message {i} is the result of call `{tool_call_id}`, which the model's \
                         turn right before it did not make (or which another message answered)"
                    ));
                }
            }
            continue;
        }
        if !open.is_empty() {
            return Err(unanswered(at, &open));
        }
        if let Message::Assistant { tool_calls, .. } = message {
            at = i;
            for call in tool_calls {
                if call.id.is_empty() || open.contains(&&*call.id) {
                    return Err(format!(
                        "message {i} has a tool call whose id `{}` is empty or used twice",
                        call.id
                    ));
                }
                open.push(&call.id);
            }
        }
    }
    let waiting = paused && at + 1 == history.len();
    if !open.is_empty() && !waiting {
        return Err(unanswered(at, &open));
    }
    Ok(())
}

/// The error of a turn at `at` whose calls `open` have no results.
fn unanswered(at: usize, open: &[&str]) -> String {
    let ids: Vec<String> = open.iter().map(|id| format!("`{id}`")).collect();
    format!(
        "message {at} has tool calls without a result: {} (each call of a model's turn is \
         answered by a tool message right after it; a provider refuses the conversation \
         otherwise)",
        ids.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookwire_chain::call::{ToolArgs, ToolCall, ToolResult};

    fn call(id: &str) -> ToolCall {
        ToolCall::new(id, "t", ToolArgs::from_json("{}"))
    }

    fn calls(ids: &[&str]) -> Message {
        Message::assistant_calls("", ids.iter().map(|id| call(id)).collect())
    }

    fn result(id: &str) -> Message {
        Message::tool(id, "t", ToolResult::text("ok"))
    }

    #[test]
    fn every_call_is_answered_right_after_its_turn() {
        let user = || Message::user("hi");
        let ok = [
            user(),
            calls(&["a", "b"]),
            result("b"),
            result("a"),
            Message::assistant("done"),
            user(),
        ];
        assert_eq!(answered(&ok, false), Ok(()));
        // Paused: the last turn's calls wait.
        let paused = [user(), calls(&["a"])];
        assert_eq!(answered(&paused, true), Ok(()));
        let err = answered(&paused, false).unwrap_err();
        assert!(
            err.starts_with("message 1 has tool calls without a result: `a`"),
            "{err}"
        );
        // A result missing before the next user turn, even when paused.
        let gap = [
            user(),
            calls(&["a", "b"]),
            result("a"),
            user(),
            calls(&["c"]),
        ];
        let err = answered(&gap, true).unwrap_err();
        assert!(
            err.starts_with("message 1 has tool calls without a result: `b`"),
            "{err}"
        );
        // A result of no call, or twice.
        let stray = [user(), result("a")];
        assert!(
            answered(&stray, false)
                .unwrap_err()
                .starts_with("message 1 is the result")
        );
        let twice = [user(), calls(&["a"]), result("a"), result("a")];
        assert!(
            answered(&twice, false)
                .unwrap_err()
                .starts_with("message 3 is the result")
        );
        let dup = [user(), calls(&["a", "a"]), result("a"), result("a")];
        assert!(answered(&dup, false).unwrap_err().contains("used twice"));
    }
}
