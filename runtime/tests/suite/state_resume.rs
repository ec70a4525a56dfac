//! Resumable state: a run paused for approval exports its state as JSON,
//! and a NEW PROCESS imports it, gives the decision and finishes the run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::process::Command;
use std::sync::{Arc, Mutex};

use agent_common::{TestAgent, test_agent};
use hookwire::agent::{RunError, RunState, RunStatus, Runner};
use hookwire::approval::{
    ApprovalDecision, Approvals, DeferAll, NeedsApproval, ResolvedApproval, Sticky,
};
use hookwire::model::{Message, ScriptedModel, Turn, TurnExpectation};
use hookwire::{FnTool, Router, Tool, ToolHandler, ToolResult, ToolSource, chain};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Target {
    target: String,
}

type Log = Arc<Mutex<Vec<String>>>;

fn agent(ran: Log) -> TestAgent<impl hookwire::ToolSet> {
    let r = ran.clone();
    let status = FnTool::new("status", "Shows status.", move |t: Target| {
        let r = r.clone();
        async move {
            r.lock().unwrap().push(format!("status {}", t.target));
            format!("{} is healthy", t.target)
        }
    });
    let deploy = FnTool::new("deploy", "Deploys.", move |t: Target| {
        let r = ran.clone();
        async move {
            r.lock().unwrap().push(format!("deploy {}", t.target));
            format!("deployed {}", t.target)
        }
    });
    test_agent(
        "ops",
        Router::new().tool(status).route(
            deploy.definition(),
            ToolSource::Function,
            chain!(NeedsApproval::new(true) => ToolHandler(deploy)),
        ),
    )
}

fn script() -> ScriptedModel {
    ScriptedModel::from_turns([
        Turn::call("status", json!({"target": "prod"}))
            .and_call("deploy", json!({"target": "prod"})),
        Turn::text("prod deployed").expecting(TurnExpectation {
            last_contains: Some("deployed prod".into()),
            ..Default::default()
        }),
    ])
}

fn tool_results(history: &[Message]) -> Vec<String> {
    history
        .iter()
        .filter_map(Message::tool_result)
        .map(ToolResult::text_content)
        .collect()
}

async fn pause() -> (RunState, Log) {
    let ran: Log = Arc::default();
    let mut runner = Runner::new(agent(ran.clone()), script())
        .with_approvals(Approvals::new(DeferAll))
        .with_correlation_id("run-42");
    let out = runner.run("deploy prod").await.unwrap();
    match &out.status {
        RunStatus::Paused { pending } => {
            assert_eq!(pending.len(), 1);
            assert_eq!(pending[0].tool(), "deploy");
            assert_eq!(pending[0].arguments, json!({"target": "prod"}));
        }
        other => panic!("expected a pause, got {other:?}"),
    }
    assert!(runner.is_paused());
    assert_eq!(*ran.lock().unwrap(), ["status prod"]);
    (runner.export_state(), ran)
}

#[tokio::test]
async fn state_round_trips_through_json() {
    let (state, _) = pause().await;
    let text = state.to_json().unwrap();
    let back = RunState::from_json(&text).unwrap();
    assert_eq!(back, state);
    assert_eq!(back.approvals.pending[0].tool_use_id(), "call_0_1");
    let id = back.approvals.pending[0].id();
    assert_eq!(back.correlation_id, "run-42");
    // Resuming before deciding is refused, and nothing runs.
    let ran: Log = Arc::default();
    let mut runner = Runner::new(agent(ran.clone()), script().skip(1))
        .with_state_seal(hookwire::agent::StateSeal::unsigned())
        .with_state(back)
        .unwrap();
    assert!(matches!(
        runner.resume().await,
        Err(RunError::StillPending(1))
    ));
    assert!(ran.lock().unwrap().is_empty());
    // A denial resumes too: the model reads the reason.
    runner
        .approvals()
        .resolve(&id, ApprovalDecision::Deny("not today".into()))
        .unwrap();
    let model_err = runner.resume().await.unwrap_err();
    assert!(
        model_err.to_string().contains("deployed prod"),
        "the script expected a deploy: {model_err}"
    );
    assert_eq!(
        tool_results(runner.history())[1],
        "tool call denied by `needs_approval`: not today"
    );
    assert!(ran.lock().unwrap().is_empty());
}

const STATE_VAR: &str = "HOOKWIRE_RESUME_STATE";

#[tokio::test]
async fn a_paused_run_resumes_in_a_new_process() {
    let (state, _) = pause().await;
    let dir = std::env::temp_dir().join(format!("hookwire-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let state_path = dir.join("state.json");
    std::fs::write(&state_path, state.to_json().unwrap()).unwrap();
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "state_resume::resume_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(STATE_VAR, &state_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_ne!(
        report["pid"],
        json!(std::process::id()),
        "it ran in another process"
    );
    // Only the approved call ran in the new process; status was not run again.
    assert_eq!(report["ran"], json!(["deploy prod"]));
    assert_eq!(report["text"], "prod deployed");
    assert_eq!(
        report["results"],
        json!(["prod is healthy", "deployed prod"])
    );
    assert_eq!(
        report["roles"],
        json!(["user", "assistant", "tool", "tool", "assistant"])
    );
}

/// The second process: import, decide, resume.
#[tokio::test]
#[ignore = "run by a_paused_run_resumes_in_a_new_process in a child process"]
async fn resume_child() {
    let Ok(path) = std::env::var(STATE_VAR) else {
        panic!("{STATE_VAR} is not set: this test is run by a_paused_run_resumes_in_a_new_process");
    };
    let state = RunState::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let ran: Log = Arc::default();
    let mut runner = Runner::new(agent(ran.clone()), script().skip(1))
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(hookwire::agent::StateSeal::unsigned())
        .with_state(state)
        .unwrap();
    assert!(runner.is_paused());
    assert_eq!(runner.correlation_id(), "run-42");
    let pending = runner.approvals().pending();
    runner
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    let report = json!({
        "pid": std::process::id(),
        "ran": *ran.lock().unwrap(),
        "text": out.text,
        "results": tool_results(runner.history()),
        "roles": runner.history().iter().map(Message::role).collect::<Vec<_>>(),
    });
    let out_path = std::path::Path::new(&path).with_file_name("out.json");
    std::fs::write(out_path, report.to_string()).unwrap();
}

/// Asks about every `status` call from a lifecycle hook.
struct AskStatus;

impl hookwire::agent::lifecycle::LifecycleHooks for AskStatus {
    async fn pre_tool_use(
        &self,
        cx: &mut hookwire::agent::lifecycle::PreToolUse<'_>,
    ) -> hookwire::Decision {
        if cx.tool == "status" {
            hookwire::Decision::Ask("status needs a look".into())
        } else {
            hookwire::Decision::Continue
        }
    }
}

#[tokio::test]
async fn a_lifecycle_ask_can_pause_too_and_a_paused_run_refuses_new_prompts() {
    let ran: Log = Arc::default();
    let model = ScriptedModel::from_turns([
        Turn::call("status", json!({"target": "db"})),
        Turn::text("db checked"),
    ]);
    let mut runner = Runner::new(agent(ran.clone()).with_hooks(AskStatus), model)
        .with_approvals(Approvals::new(DeferAll));
    let out = runner.run("check db").await.unwrap();
    assert!(matches!(out.status, RunStatus::Paused { .. }));
    assert!(matches!(
        runner.run("something else").await,
        Err(RunError::Paused)
    ));
    assert!(ran.lock().unwrap().is_empty());
    let pending = runner.approvals().pending();
    runner
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.text, "db checked");
    assert_eq!(*ran.lock().unwrap(), ["status db"]);
    assert!(matches!(runner.resume().await, Err(RunError::NotPaused)));
}

/// The agent-level approval settings gate a call that no chain gates, and
/// they and the sticky decisions travel with the exported state.
#[tokio::test]
async fn an_agent_level_requirement_pauses_the_call_and_travels_with_the_state() {
    let ran: Log = Arc::default();
    let model = || {
        ScriptedModel::from_turns([
            Turn::call("status", json!({"target": "db"})),
            Turn::text("db checked"),
        ])
    };
    let mut runner =
        Runner::new(agent(ran.clone()), model()).with_approvals(Approvals::new(DeferAll));
    runner.approvals().require("status");
    runner.approvals().set_sticky("deploy", Sticky::AlwaysDeny);
    let out = runner.run("check db").await.unwrap();
    match &out.status {
        RunStatus::Paused { pending } => {
            assert_eq!(pending.len(), 1);
            assert_eq!(pending[0].tool(), "status");
        }
        other => panic!("expected a pause, got {other:?}"),
    }
    assert!(ran.lock().unwrap().is_empty(), "the gated call did not run");
    let state = RunState::from_json(&runner.export_state().to_json().unwrap()).unwrap();
    assert!(state.approvals.settings.needs_approval.contains("status"));
    assert_eq!(state.approvals.sticky["deploy"], Sticky::AlwaysDeny);
    let mut runner = Runner::new(agent(ran.clone()), model().skip(1))
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(hookwire::agent::StateSeal::unsigned())
        .with_state(state)
        .unwrap();
    let pending = runner.approvals().pending();
    runner
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.text, "db checked");
    assert_eq!(*ran.lock().unwrap(), ["status db"]);
}

/// Edits the paused step's calls everywhere the state holds them (the
/// step, the model's recorded answer, the history), as a careful forger
/// would.
pub(crate) fn edit_calls(state: &mut RunState, edit: impl Fn(&mut [hookwire::ToolCall])) {
    let Some(step) = state.pending_step.as_mut() else {
        panic!("the state is not paused")
    };
    edit(&mut step.calls);
    edit(&mut step.response.tool_calls);
    match state.history.last_mut() {
        Some(Message::Assistant { tool_calls, .. }) => edit(tool_calls),
        other => panic!("the history ends with {other:?}"),
    }
}

/// Asserts that `runner` refuses `state` with an error saying `expected`,
/// and is left as it was.
pub(crate) fn assert_refused<A, H>(runner: &mut Runner<A, H>, state: RunState, expected: &str)
where
    A: hookwire::agent::Agent,
    H: hookwire::agent::lifecycle::LifecycleHooks,
{
    let before = runner.export_state();
    let error = runner.import_state(state).unwrap_err();
    assert!(
        error.to_string().contains(expected),
        "{expected}: got `{error}`"
    );
    assert_eq!(
        runner.export_state(),
        before,
        "{expected}: the runner changed"
    );
}

/// A state that does not fit the agent is refused with a clear error, and
/// the runner is left as it was: another format version, another agent,
/// tools the agent does not have, call ids that are not waiting calls of
/// the paused step, a paused step that contradicts itself.
#[tokio::test]
async fn a_state_that_does_not_fit_the_agent_is_refused_and_changes_nothing() {
    let (good, _) = pause().await;
    type Break = Box<dyn Fn(&mut RunState)>;
    let cases: Vec<(&str, Break)> = vec![
        ("format version 1", Box::new(|s| s.version = 1)),
        (
            "belongs to agent `billing`",
            Box::new(|s| s.agent = "billing".into()),
        ),
        (
            "names tool `wipe`",
            Box::new(|s| edit_calls(s, |calls| calls[1].name = "wipe".into())),
        ),
        (
            "names call id `zzz`",
            Box::new(|s| {
                let mut call = s.approvals.pending[0].clone();
                call.key.id = "zzz".into();
                s.approvals
                    .resolved
                    .push(ResolvedApproval::new(call, ApprovalDecision::Approve));
            }),
        ),
        (
            "names call id `call_0_0`",
            Box::new(|s| s.approvals.pending[0].key.id = "call_0_0".into()),
        ),
        (
            "2 call(s) but 0 result slot(s)",
            Box::new(|s| {
                if let Some(step) = s.pending_step.as_mut() {
                    step.results.clear();
                }
            }),
        ),
        (
            "used twice",
            Box::new(|s| edit_calls(s, |calls| calls[1].id = "call_0_0".into())),
        ),
        (
            "child histories names tool `agent__Ghost`",
            Box::new(|s| {
                s.children.insert("agent__Ghost".into(), Vec::new());
            }),
        ),
    ];
    for (expected, break_it) in cases {
        let mut state = good.clone();
        break_it(&mut state);
        let ran: Log = Arc::default();
        let mut runner = Runner::new(agent(ran.clone()), script().skip(1))
            .with_state_seal(hookwire::agent::StateSeal::unsigned());
        assert_refused(&mut runner, state, expected);
        assert!(!runner.is_paused());
    }
    // The good state imports.
    let mut runner = Runner::new(agent(Arc::default()), script().skip(1))
        .with_state_seal(hookwire::agent::StateSeal::unsigned());
    runner.import_state(good).unwrap();
    assert!(runner.is_paused());
}
