//! Availability and dynamic instructions: a tool that is not available in
//! a step is neither offered to the model nor callable there, and the
//! instructions of the offered tools (and of a tool set) join the system
//! prompt, asked again at every step, the same after an export and an
//! import of the state.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::agent_common::seeing::{Offered as Seen, seeing};
use crate::agent_common::tool_results;
use hookwire::agent::{AgentConfig, BasicAgent, Runner, TraceEvent};
use hookwire::approval::{ApprovalDecision, Approvals, DeferAll, NeedsApproval};
use hookwire::model::{Message, Turn};
use hookwire::{
    Outcome, Router, Tool, ToolContext, ToolHandler, ToolResult, ToolSource, call::NoArgs, chain,
    view::StepView,
};
use serde_json::json;

/// The session value that makes `reset` available.
struct Admin;

/// `reset`: offered only in an admin's session, with an instruction of its
/// own; counts its runs.
#[derive(Clone, Default)]
struct Reset(Arc<AtomicUsize>);

impl Tool for Reset {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "reset"
    }

    fn description(&self) -> &str {
        "Resets everything."
    }

    fn available(step: &StepView<'_>) -> bool {
        step.session::<Admin>().is_some()
    }

    fn instruction(step: &StepView<'_>) -> Option<Cow<'static, str>> {
        Some(Cow::Owned(format!(
            "Reset only when asked twice (step {}).",
            step.step
        )))
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(ToolResult::text("reset done"))
    }
}

/// `echo`: always available.
#[derive(Clone, Copy, Default)]
struct Echo;

impl Tool for Echo {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "echo"
    }

    fn description(&self) -> &str {
        "Echoes."
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        Ok(ToolResult::text("\"echo\""))
    }
}

fn echo() -> Echo {
    Echo
}

/// The agent `ops` with `tools` and the instruction `instruction`.
fn ops<T: hookwire::ToolSet + 'static>(tools: T, instruction: &'static str) -> BasicAgent<T> {
    BasicAgent::new(AgentConfig::new("ops").with_instruction(instruction), tools)
}

fn agent(reset: &Reset) -> impl hookwire::agent::Agent + 'static {
    ops(
        Router::new().tool(echo()).tool(reset.clone()),
        "You operate.",
    )
}

#[tokio::test]
async fn an_unavailable_tool_is_neither_offered_nor_callable() {
    let reset = Reset::default();
    let (model, seen) = seeing([Turn::call("reset", json!({})), Turn::text("done")]);
    let mut runner = Runner::new(agent(&reset), model);
    let out = runner.run("reset it").await.unwrap();
    assert_eq!(reset.0.load(Ordering::SeqCst), 0, "the tool never ran");
    assert_eq!(
        tool_results(runner.history()),
        [
            "tool call denied by `available`: tool `reset` is not available in this step, so it \
          was not offered and cannot be called"
        ]
    );
    // Neither step offered it, nor added its instruction.
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("You operate.".to_owned(), vec!["echo".to_owned()]),
            ("You operate.".to_owned(), vec!["echo".to_owned()]),
        ]
    );
    let decisions: Vec<_> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some((call.decision.to_string(), call.hook.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        decisions,
        [("denied".to_owned(), Some("available".to_owned()))]
    );
}

#[tokio::test]
async fn an_available_tool_is_offered_with_its_instruction_each_step() {
    let reset = Reset::default();
    let (model, seen) = seeing([Turn::call("reset", json!({})), Turn::text("done")]);
    let mut runner = Runner::new(agent(&reset), model).with_session_value(Admin);
    runner.run("reset it").await.unwrap();
    assert_eq!(reset.0.load(Ordering::SeqCst), 1);
    assert_eq!(tool_results(runner.history()), ["reset done"]);
    let both = vec!["echo".to_owned(), "reset".to_owned()];
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (
                "You operate.\n\nReset only when asked twice (step 0).".to_owned(),
                both.clone()
            ),
            (
                "You operate.\n\nReset only when asked twice (step 1).".to_owned(),
                both
            ),
        ]
    );
}

#[tokio::test]
async fn a_tool_sets_rule_and_instruction_cover_its_tools() {
    let reset = Reset::default();
    let admin_tools = Router::new()
        .tool(echo())
        .available_when(|step: &StepView<'_>| step.session::<Admin>().is_some())
        .with_instruction("Admin tools are audited.");
    for admin in [false, true] {
        let (model, seen) = seeing([Turn::call("echo", json!({})), Turn::text("done")]);
        let tools = admin_tools.clone().tool(reset.clone());
        let runner = Runner::new(ops(tools, ""), model);
        let mut runner = if admin {
            runner.with_session_value(Admin)
        } else {
            runner
        };
        runner.run("go").await.unwrap();
        let first = seen.lock().unwrap()[0].clone();
        if admin {
            assert_eq!(
                first,
                (
                    "Admin tools are audited.\n\nReset only when asked twice (step 0).".to_owned(),
                    vec!["echo".to_owned(), "reset".to_owned()]
                )
            );
            assert_eq!(tool_results(runner.history()), ["\"echo\""]);
        } else {
            assert_eq!(first, (String::new(), vec![]));
            assert!(tool_results(runner.history())[0].contains("tool `echo` is not available"));
        }
    }
}

/// `confirm` is offered once the user has said "yes" (the history, which an
/// exported state keeps).
#[derive(Clone, Default)]
struct Confirm;

impl Tool for Confirm {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "confirm"
    }

    fn description(&self) -> &str {
        "Confirms."
    }

    fn available(step: &StepView<'_>) -> bool {
        step.history
            .iter()
            .any(|m| matches!(m, Message::User { content } if content.contains("yes")))
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        Ok(ToolResult::text("confirmed"))
    }
}

#[tokio::test]
async fn a_resumed_run_sees_the_same_tools_after_an_export_and_an_import() {
    let build = || {
        let echo = echo();
        Router::new()
            .route(
                echo.definition(),
                ToolSource::Function,
                chain!(NeedsApproval::new(true) => ToolHandler(echo)),
            )
            .tool(Confirm)
    };
    let turns = || {
        [
            Turn::call("echo", json!({})),
            Turn::call("confirm", json!({})),
            Turn::text("done"),
        ]
    };
    let (model, seen) = seeing(turns());
    let mut first = Runner::new(ops(build(), ""), model).with_approvals(Approvals::new(DeferAll));
    let out = first.run("yes, go").await.unwrap();
    let hookwire::agent::RunStatus::Paused { pending } = &out.status else {
        panic!("{out:?}")
    };
    let state = serde_json::to_string(&first.export_state()).unwrap();

    // Another process: the state, a fresh runner, the rest of the script.
    let (model, seen_after) = seeing(turns().into_iter().skip(1));
    let mut second = Runner::new(ops(build(), ""), model)
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(hookwire::agent::StateSeal::unsigned());
    second
        .import_state(serde_json::from_str(&state).unwrap())
        .unwrap();
    second
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    second.resume().await.unwrap();
    assert_eq!(tool_results(second.history()), ["\"echo\"", "confirmed"]);
    let offered = |seen: &Seen| -> Vec<Vec<String>> {
        seen.lock().unwrap().iter().map(|s| s.1.clone()).collect()
    };
    let both = vec!["echo".to_owned(), "confirm".to_owned()];
    assert_eq!(offered(&seen), std::slice::from_ref(&both));
    assert_eq!(offered(&seen_after), [both.clone(), both]);
}
