//! A paused run is legitimate state, not a broken one: it refuses a new
//! prompt, exports and imports as it is, and a resumption that does not
//! end leaves it paused (with its paused child runs), to resume again. A
//! state whose history a provider would refuse is not imported.

use super::cancel::{Checking, Slow, quick, refused, slow};
use super::*;
use hookwire::agent::{RunStatus, StateSeal};
use hookwire::approval::{DeferAll, NeedsApproval};
use hookwire::model::Message;
use hookwire::{ToolHandler, ToolSource, chain};

/// A run paused for approval is not broken: a new prompt is refused, the
/// state exports and imports as it is, and a resumed step that is dropped
/// midway leaves the run paused, to resume again (its call asks again).
#[tokio::test]
async fn a_pause_stays_resumable_and_a_dropped_resumption_stays_paused() {
    let (tool, started) = slow(1);
    let make = |tool: Slow| {
        let definition = tool.definition();
        test_agent(
            "ops",
            Router::new().tool(quick()).route(
                definition,
                ToolSource::Function,
                chain!(NeedsApproval::new(true) => ToolHandler(tool)),
            ),
        )
    };
    let model = Checking::new([
        Turn::call("quick", json!({})).and_call("slow", json!({})),
        Turn::text("done"),
    ]);
    let mut runner =
        Runner::new(make(tool), model.clone()).with_approvals(Approvals::new(DeferAll));
    let out = runner.run("go").await.unwrap();
    let RunStatus::Paused { pending } = out.status else {
        panic!("{out:?}")
    };
    assert!(matches!(runner.run("other").await, Err(RunError::Paused)));
    // The paused state imports as it is.
    let state = runner.export_state();
    let mut copy = Runner::new(make(slow(0).0), model.clone())
        .with_approvals(Approvals::new(DeferAll))
        .with_state_seal(StateSeal::unsigned());
    copy.import_state(state.clone()).unwrap();
    assert!(copy.is_paused());
    let paused_history = runner.history().to_vec();
    runner
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    {
        let mut stream = runner.stream_resume();
        let run = async { while stream.next().await.is_some() {} };
        tokio::select! {
            () = run => panic!("the resumed run ended"),
            () = started.notified() => {}
        }
    }
    assert!(runner.is_paused());
    assert_eq!(runner.history(), paused_history);
    assert_eq!(runner.export_state().pending_step, state.pending_step);
    // The call asks again, then runs; the model reads a whole step.
    let out = runner.resume().await.unwrap();
    let RunStatus::Paused { pending } = out.status else {
        panic!("{out:?}")
    };
    runner
        .approvals()
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    let out = runner.resume().await.unwrap();
    assert_eq!(out.text, "done");
    let sent = model.last_sent();
    assert_eq!(refused(&sent), None);
    assert_eq!(
        crate::agent_common::tool_results(&sent),
        ["quick done", "slow done"]
    );
}

/// A parent paused at a child agent's approval, resumed and dropped while
/// the child's approved call runs, stays paused with the child's paused
/// run kept: resumed again, the child's call asks again, then the run
/// completes.
#[tokio::test]
async fn a_dropped_resumption_of_a_paused_child_keeps_both_paused() {
    let (tool, started) = slow(1);
    let definition = tool.definition();
    let child = BasicAgent::new(
        AgentConfig::new("Worker").with_description("Works."),
        Router::new().route(
            definition,
            ToolSource::Function,
            chain!(NeedsApproval::new(true) => ToolHandler(tool)),
        ),
    );
    let child_model = Checking::new([Turn::call("slow", json!({})), Turn::text("child done")]);
    let worker = AgentTool::new(child, child_model.clone() as Arc<dyn Model>);
    let model = Checking::new([
        Turn::call("agent__Worker", json!({"message": "work"})),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(
        test_agent("boss", Router::new().tool(worker)),
        model.clone(),
    )
    .with_approvals(Approvals::new(DeferAll));
    let approve = |runner: &Runner<_>, out: RunOutput| {
        let RunStatus::Paused { pending } = out.status else {
            panic!("{out:?}")
        };
        assert_eq!(pending[0].tool(), "slow");
        runner
            .approvals()
            .resolve(&pending[0].id(), ApprovalDecision::Approve)
            .unwrap();
    };
    let out = runner.run("go").await.unwrap();
    approve(&runner, out);
    let paused = runner.export_state();
    assert_eq!(paused.paused_children.len(), 1);
    {
        let mut stream = runner.stream_resume();
        let run = async { while stream.next().await.is_some() {} };
        tokio::select! {
            () = run => panic!("the resumed run ended"),
            () = started.notified() => {}
        }
    }
    assert!(runner.is_paused());
    let state = runner.export_state();
    assert_eq!(state.history, paused.history);
    assert_eq!(state.paused_children, paused.paused_children);
    let out = runner.resume().await.unwrap();
    approve(&runner, out);
    let out = runner.resume().await.unwrap();
    assert_eq!(out.text, "done");
    assert_eq!(refused(&model.last_sent()), None);
    assert_eq!(
        crate::agent_common::tool_results(&model.last_sent()),
        ["child done"]
    );
    assert_eq!(
        crate::agent_common::tool_results(&child_model.last_sent()),
        ["slow done"]
    );
}

/// A state whose history has a tool call without a result (as one
/// exported after a cancelled run used to) is refused, saying where; the
/// runner is unchanged.
#[tokio::test]
async fn a_state_with_an_unanswered_call_is_refused() {
    let model = Checking::new([Turn::text("done")]);
    let mut runner = Runner::new(test_agent("q", Router::new().tool(quick())), model.clone());
    runner.run("hi").await.unwrap();
    let good = runner.export_state();
    let mut bad = good.clone();
    bad.history.push(Message::user("go"));
    bad.history.push(Message::assistant_calls(
        "",
        vec![hookwire::ToolCall::new(
            "call_1",
            "quick",
            hookwire::ToolArgs::from_json("{}"),
        )],
    ));
    let mut other = Runner::new(test_agent("q", Router::new().tool(quick())), model.clone())
        .with_state_seal(StateSeal::unsigned());
    let err = other.import_state(bad.clone()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the state's history is not a conversation a model accepts: message 3 has tool calls \
         without a result: `call_1` (each call of a model's turn is answered by a tool message \
         right after it; a provider refuses the conversation otherwise)"
    );
    assert!(other.history().is_empty());
    // A result of no call is refused too.
    let mut stray = good.clone();
    stray.history.push(Message::tool(
        "call_9",
        "quick",
        ToolResult::text("quick done"),
    ));
    let err = other.import_state(stray).unwrap_err();
    assert!(
        err.to_string()
            .contains("message 2 is the result of call `call_9`"),
        "{err}"
    );
}

/// A run dropped after a child agent paused in its step, beside a call
/// still running, exports no paused child run and no waiting approval:
/// they belonged to the rolled-back step, and the state imports.
#[tokio::test]
async fn an_export_after_a_drop_carries_no_paused_child_of_the_step() {
    let (tool, started) = slow(1);
    let gated = quick();
    let child = BasicAgent::new(
        AgentConfig::new("Worker").with_description("Works."),
        Router::new().route(
            gated.definition(),
            ToolSource::Function,
            chain!(NeedsApproval::new(true) => ToolHandler(gated)),
        ),
    );
    let child_model = Checking::new([Turn::call("quick", json!({})), Turn::text("child done")]);
    let worker = AgentTool::new(child, child_model as Arc<dyn Model>);
    let model = Checking::new([
        Turn::call("agent__Worker", json!({"message": "work"})).and_call("slow", json!({})),
        Turn::text("done"),
    ]);
    let make = |worker, tool| test_agent("boss", Router::new().tool(worker).tool(tool));
    let mut runner =
        Runner::new(make(worker, tool), model.clone()).with_approvals(Approvals::new(DeferAll));
    {
        let mut stream = runner.stream("go");
        while let Some(event) = stream.next().await {
            if let (false, EventKind::Trace(TraceEvent::Finished { status, .. })) =
                (event.is_root(), &event.kind)
            {
                assert_eq!(status, "paused");
                break;
            }
        }
        started.notified().await;
    }
    assert_eq!(runner.history(), [Message::user("go")]);
    let state = runner.export_state();
    assert!(state.paused_children.is_empty(), "{state:#?}");
    assert!(state.approvals.pending.is_empty(), "{state:#?}");
    let fresh_child = Checking::new([Turn::text("child done")]);
    let fresh_worker = AgentTool::new(
        BasicAgent::new(
            AgentConfig::new("Worker").with_description("Works."),
            Router::new().tool(quick()),
        ),
        fresh_child as Arc<dyn Model>,
    );
    let mut copy = Runner::new(
        test_agent("boss", Router::new().tool(fresh_worker).tool(slow(0).0)),
        model.clone(),
    )
    .with_state_seal(StateSeal::unsigned());
    copy.import_state(state).unwrap();
    let out = copy.run("again").await.unwrap();
    assert_eq!(out.text, "done");
    assert_eq!(
        model.last_sent(),
        [Message::user("go"), Message::user("again")]
    );
}
