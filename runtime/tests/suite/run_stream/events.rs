//! What the stream carries: the run's trace with the live events between,
//! an approval asked for, a paused run's resumption, the trace rendered as
//! it comes.

use super::*;

/// The stream of a run with a tool that reports progress and a child
/// agent: its own trace events are the run's trace, in order; a child's
/// are the child's trace, under the child's path; the live events come
/// where they happen (deltas before the step's `Model` event, a call's
/// start and progress before its `ToolCall` event).
#[tokio::test]
async fn the_stream_carries_the_trace_as_recorded_and_the_live_events_between() {
    let outputs = Arc::new(Mutex::new(Vec::new()));
    let child_model = ScriptedModel::from_turns([costing(Turn::text("north done"), 7)]);
    let tools = Router::new()
        .tool(Sync)
        .tool(worker(child_model, outputs.clone()));
    let model = ScriptedModel::from_turns([
        costing(
            Turn::call("sync", json!({})).and_call("agent__Worker", json!({"message": "north"})),
            10,
        ),
        costing(Turn::text("all synced now"), 20),
    ]);
    let mut runner = Runner::new(test_agent("boss", tools), model);
    let events: Vec<RunEvent> = runner.stream("sync everything").collect().await;

    let Some(EventKind::Done(Ok(out))) = events.last().map(|e| &e.kind) else {
        panic!("{:#?}", kinds(&events))
    };
    assert_eq!(out.text, "all synced now");
    // The stream's own trace events are the run's trace, in order.
    let own: Vec<&TraceEvent> = events
        .iter()
        .filter(|e| e.is_root())
        .filter_map(RunEvent::trace)
        .collect();
    assert_eq!(own, out.trace.iter().collect::<Vec<_>>());
    // The child's are the child's trace, under its path: the parent's call.
    let child_out = outputs.lock().unwrap().pop().unwrap();
    let child: Vec<&RunEvent> = events.iter().filter(|e| !e.is_root()).collect();
    let child_trace: Vec<&TraceEvent> = child.iter().filter_map(|e| e.trace()).collect();
    assert_eq!(child_trace, child_out.trace.iter().collect::<Vec<_>>());
    let call_id = match &runner.history()[1] {
        hookwire::model::Message::Assistant { tool_calls, .. } => tool_calls[1].id.clone(),
        other => panic!("{other:?}"),
    };
    for event in &child {
        assert_eq!(&*event.agent, "Worker");
        assert_eq!(event.path.len(), 1);
        assert_eq!(
            (event.path[0].agent.as_str(), event.path[0].step),
            ("boss", 0)
        );
        assert_eq!(*event.path[0].id, *call_id);
    }

    assert_eq!(
        kinds(&events),
        [
            "boss: trace prompt",
            "boss: usage 11 total 11",
            "boss: trace model",
            "boss: start sync {}",
            "boss: progress sync: fetched 3 files",
            "boss: start agent__Worker {\"message\":\"north\"}",
            "boss/Worker: trace prompt",
            "boss/Worker: delta \"north \"",
            "boss/Worker: delta \"done\"",
            "boss/Worker: usage 8 total 8",
            "boss/Worker: trace model",
            "boss/Worker: trace completed",
            "boss: progress sync: wrote 3 files",
            "boss: trace progress",
            "boss: trace progress",
            "boss: trace call sync",
            "boss: trace call agent__Worker",
            "boss: delta \"all \"",
            "boss: delta \"synced \"",
            "boss: delta \"now\"",
            "boss: usage 21 total 32",
            "boss: trace model",
            "boss: trace completed",
            "boss: done all synced now",
        ]
    );
}

/// A call that needs approval: the stream says it asks, before the
/// call's `ToolCall` event (which has the decision).
#[tokio::test]
async fn the_stream_says_when_a_call_asks_for_approval() {
    let model = ScriptedModel::from_turns([Turn::call("sync", json!({})), Turn::text("ok")]);
    let mut runner = Runner::new(test_agent("ops", Router::new().tool(Sync)), model)
        .with_approvals(Approvals::new(FnApprover::new(|_| {
            ApprovalDecision::Approve
        })));
    runner.approvals().require("sync");
    let events: Vec<RunEvent> = runner.stream("sync").collect().await;
    let seen: Vec<String> = kinds(&events)
        .into_iter()
        .filter(|k| k.contains("sync"))
        .collect();
    assert_eq!(
        seen,
        [
            "ops: start sync {}",
            "ops: approval sync at approver",
            "ops: progress sync: fetched 3 files",
            "ops: progress sync: wrote 3 files",
            "ops: trace call sync",
        ]
    );
}

/// A run that pauses for approval streams to its `Done` (paused), and its
/// resumption streams too (`stream_resume`): each stream's trace events
/// are its run's trace.
#[tokio::test]
async fn a_paused_run_resumes_as_a_stream() {
    use hookwire::agent::RunStatus;
    use hookwire::approval::{ApprovalDecision, Approvals, DeferAll};

    let model = ScriptedModel::from_turns([Turn::call("sync", json!({})), Turn::text("ok")]);
    let approvals = Approvals::new(DeferAll);
    let mut runner = Runner::new(test_agent("ops", Router::new().tool(Sync)), model)
        .with_approvals(approvals.clone());
    approvals.require("sync");
    let first: Vec<RunEvent> = runner.stream("sync").collect().await;
    let Some(EventKind::Done(Ok(out))) = first.last().map(|e| &e.kind) else {
        panic!("{:#?}", kinds(&first))
    };
    let RunStatus::Paused { pending } = &out.status else {
        panic!("{out:?}")
    };
    assert!(kinds(&first).contains(&"ops: approval sync at approver".to_owned()));
    approvals
        .resolve(&pending[0].id(), ApprovalDecision::Approve)
        .unwrap();
    let resumed: Vec<RunEvent> = runner.stream_resume().collect().await;
    let Some(EventKind::Done(Ok(out))) = resumed.last().map(|e| &e.kind) else {
        panic!("{:#?}", kinds(&resumed))
    };
    assert_eq!(out.status, RunStatus::Completed);
    let traced: Vec<&TraceEvent> = resumed.iter().filter_map(RunEvent::trace).collect();
    assert_eq!(traced, out.trace.iter().collect::<Vec<_>>());
    assert_eq!(
        kinds(&resumed)
            .into_iter()
            .filter(|k| k.contains("sync"))
            .collect::<Vec<_>>(),
        [
            "ops: start sync {}",
            "ops: approval sync at approver",
            "ops: progress sync: fetched 3 files",
            "ops: progress sync: wrote 3 files",
            "ops: trace call sync",
        ]
    );
}

/// `TraceLines` renders a streamed trace as it comes, as `trace_text`
/// renders the finished one: with `max_display_instances: 2`, a step that
/// calls a child four times shows two calls and says two are hidden
/// (counted from the step's `Model` event, before the calls end).
#[tokio::test]
async fn trace_lines_render_the_stream_as_trace_text_does() {
    use hookwire::agent::TraceLines;
    let outputs = Arc::new(Mutex::new(Vec::new()));
    let child_model =
        ScriptedModel::from_turns((0..4).map(|i| Turn::text(format!("r{i}")))).by_conversation();
    let config = AgentConfig::new("boss").with_max_display_instances(2);
    let boss = BasicAgent::new(
        config,
        Router::new().tool(worker(child_model, outputs.clone())),
    );
    let step = (0..4).fold(Turn::default(), |turn, i| {
        turn.and_call("agent__Worker", json!({"message": format!("m{i}")}))
    });
    let model = ScriptedModel::from_turns([step, Turn::text("done")]);
    let mut runner = Runner::new(boss, model);
    let mut lines = TraceLines::new(Some(2));
    let mut live = String::new();
    let mut events = runner.stream("go");
    let mut out = None;
    while let Some(event) = events.next().await {
        if let (true, Some(trace)) = (event.is_root(), event.trace()) {
            live.push_str(&lines.line(trace));
        }
        if let EventKind::Done(done) = event.kind {
            out = Some(*done.unwrap());
        }
    }
    let out = out.unwrap();
    assert_eq!(live, out.trace_text());
    assert!(
        live.contains(
            "step 0 tool agent__Worker: 2 more concurrent instances not shown (max_display_instances: 2)\n"
        ),
        "{live}"
    );
}
