//! A run as a stream of events (`Runner::stream`): the stream's trace
//! events are the run's trace, live events come as things happen (text
//! deltas, a call starting, progress, an approval asked for, usage), child
//! agents' events arrive under their path, and dropping the stream cancels
//! the run. Usage: child agents' tokens roll up per agent path, and a usage
//! limit ends the run before the model call that would pass it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use hookwire::agent::{
    AgentConfig, AgentTool, BasicAgent, EventKind, RunError, RunEvent, RunOutput, Runner,
    TraceEvent,
};
use hookwire::approval::{Answer, FnAsker};
use hookwire::model::{Model, ScriptedModel, Turn, Usage};
use hookwire::{NoArgs, Outcome, Router, Tool, ToolContext, ToolResult};
use serde_json::json;

use crate::agent_common::test_agent;
use crate::tool_progress::Sync;

fn used(input_tokens: u64, output_tokens: u64) -> Usage {
    Usage {
        input_tokens,
        output_tokens,
    }
}

/// A turn that reports `tokens` (input) + 1 (output).
fn costing(turn: Turn, tokens: u64) -> Turn {
    Turn {
        usage: used(tokens, 1),
        ..turn
    }
}

/// A child agent `Worker` whose model answers each call with text, and the
/// child's run outputs (through its extractor) for the test to compare.
fn worker(
    model: ScriptedModel,
    outputs: Arc<Mutex<Vec<RunOutput>>>,
) -> AgentTool<BasicAgent<Router<hookwire::RouterEnd>>> {
    let agent = BasicAgent::new(
        AgentConfig::new("Worker").with_description("Works."),
        Router::new(),
    );
    let model: Arc<dyn Model> = Arc::new(model);
    AgentTool::new(agent, model).with_output(move |out, _| {
        outputs.lock().unwrap().push(out.clone());
        ToolResult::text(out.text.clone())
    })
}

fn kinds(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let who = e.agent_path();
            let what = match &e.kind {
                EventKind::TextDelta { text, .. } => format!("delta {text:?}"),
                EventKind::Usage { usage, total, .. } => {
                    format!("usage {} total {}", usage.total(), total.total())
                }
                EventKind::ToolStarted {
                    tool, arguments, ..
                } => format!("start {tool} {}", serde_json::to_string(arguments).unwrap()),
                EventKind::ApprovalWait { tool, gate, .. } => format!("approval {tool} at {gate}"),
                EventKind::Progress { tool, message, .. } => format!("progress {tool}: {message}"),
                EventKind::Trace(TraceEvent::Model { .. }) => "trace model".to_owned(),
                EventKind::Trace(TraceEvent::ToolCall(call)) => format!("trace call {}", call.tool),
                EventKind::Trace(TraceEvent::Progress { .. }) => "trace progress".to_owned(),
                EventKind::Trace(TraceEvent::Prompt { .. }) => "trace prompt".to_owned(),
                EventKind::Trace(TraceEvent::Finished { status, .. }) => {
                    format!("trace {status}")
                }
                EventKind::Trace(other) => format!("trace {other}"),
                EventKind::Done(Ok(out)) => format!("done {}", out.text),
                EventKind::Done(Err(e)) => format!("failed {e}"),
                other => format!("{other:?}"),
            };
            format!("{who}: {what}")
        })
        .collect()
}

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
        .with_asker(FnAsker::new(|_| Answer::Approve));
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

/// Sleeps for a minute; notes that it started and that its future was
/// dropped.
struct Sleepy {
    started: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Tool for Sleepy {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "sleepy"
    }

    fn description(&self) -> &str {
        "Sleeps."
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        let _flag = DropFlag(self.dropped.clone());
        self.started.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok(ToolResult::text("slept"))
    }
}

/// Dropping the stream while a tool sleeps cancels the run there: the
/// tool's future is dropped at once (nothing was spawned), and the session
/// runs again afterwards.
#[tokio::test]
async fn dropping_the_stream_cancels_the_run_and_drops_the_tool() {
    let started = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new(AtomicBool::new(false));
    let tool = Sleepy {
        started: started.clone(),
        dropped: dropped.clone(),
    };
    let model = ScriptedModel::from_turns([
        Turn::call("sleepy", json!({})),
        Turn::text("never"),
        Turn::text("again"),
    ]);
    let mut runner = Runner::new(test_agent("nap", Router::new().tool(tool)), model);
    {
        let mut stream = runner.stream("nap");
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
                .await
                .expect("an event within 10 s")
                .expect("the stream goes on");
            if let EventKind::ToolStarted { .. } = event.kind {
                break;
            }
        }
        // The tool runs when the stream is polled next.
        let next = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
        assert!(next.is_err(), "the tool sleeps: {next:?}");
        assert!(started.load(Ordering::SeqCst));
        assert!(!dropped.load(Ordering::SeqCst));
    }
    assert!(
        dropped.load(Ordering::SeqCst),
        "dropping the stream dropped the tool's future"
    );
    // The session is usable again, and a plain run streams to no one.
    let out = runner.run("again").await.unwrap();
    assert_eq!(out.text, "never");
}

/// Reports progress from a task it spawns (with a context of its own, on
/// the run's scope), then waits until the test has read that progress.
struct FromAfar {
    seen: Arc<tokio::sync::Notify>,
}

impl Tool for FromAfar {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "afar"
    }

    fn description(&self) -> &str {
        "Reports progress from another task."
    }

    async fn call(&self, cx: &ToolContext, _args: NoArgs) -> Outcome {
        let scope = cx.scope().clone();
        let id = cx.tool_use_id().to_owned();
        tokio::spawn(async move {
            // After the run's poll has returned `Pending`.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let cx = scope.context(
                "afar".into(),
                hookwire::ToolSource::Function,
                None,
                id.into(),
            );
            cx.progress("from afar");
        });
        self.seen.notified().await;
        Ok(ToolResult::text("seen"))
    }
}

/// Counts its wakes.
struct CountWakes(std::sync::atomic::AtomicUsize);

impl std::task::Wake for CountWakes {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// An event sent from another task while the run waits wakes the stream's
/// task. The stream is polled by hand: after it returns `Pending` (the tool
/// waits), only the progress sent from the spawned task can wake it; the
/// tool goes on once the test has read that progress.
#[test]
fn an_event_sent_from_another_task_wakes_the_waiting_stream() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let _in_rt = rt.enter();
    let seen = Arc::new(tokio::sync::Notify::new());
    let tool = FromAfar { seen: seen.clone() };
    let model = ScriptedModel::from_turns([Turn::call("afar", json!({})), Turn::text("done")]);
    let mut runner = Runner::new(test_agent("afar", Router::new().tool(tool)), model);
    let mut stream = runner.stream("go");
    let wakes = Arc::new(CountWakes(std::sync::atomic::AtomicUsize::new(0)));
    let waker = std::task::Waker::from(wakes.clone());
    let mut cx = std::task::Context::from_waker(&waker);
    let mut events = Vec::new();
    let mut waited = false;
    loop {
        match stream.poll_next_unpin(&mut cx) {
            std::task::Poll::Ready(Some(event)) => {
                if let EventKind::Progress { .. } = &event.kind {
                    seen.notify_one();
                }
                events.push(event);
            }
            std::task::Poll::Ready(None) => break,
            std::task::Poll::Pending => {
                // Nothing polls the stream until it is woken.
                let before = wakes.0.load(Ordering::SeqCst);
                let deadline = std::time::Instant::now() + Duration::from_secs(10);
                while wakes.0.load(Ordering::SeqCst) == before {
                    assert!(
                        std::time::Instant::now() < deadline,
                        "not woken within 10 s; events so far: {:#?}",
                        kinds(&events)
                    );
                    std::thread::sleep(Duration::from_millis(2));
                }
                waited = true;
            }
        }
    }
    assert!(waited, "the stream waited for the tool");
    let kinds = kinds(&events);
    let at = |what: &str| kinds.iter().position(|k| k.ends_with(what)).unwrap();
    assert!(
        at("progress afar: from afar") > at("start afar {}"),
        "{kinds:#?}"
    );
    assert!(
        at("progress afar: from afar") < at("trace call afar"),
        "{kinds:#?}"
    );
    assert_eq!(kinds.last().unwrap(), "afar: done done");
}

/// Child agents' tokens roll up to the parent, per agent path: two calls of
/// one child under one path, a grandchild under its own.
#[tokio::test]
async fn child_usage_rolls_up_to_the_parent_per_agent_path() {
    let outputs = Arc::new(Mutex::new(Vec::new()));
    // The grandchild answers twice (once per call of its parent).
    let leaf_model = ScriptedModel::from_turns([
        costing(Turn::text("leaf a"), 2),
        costing(Turn::text("leaf b"), 2),
    ]);
    let leaf = AgentTool::new(
        BasicAgent::new(
            AgentConfig::new("Leaf").with_description("Leaf."),
            Router::new(),
        ),
        Arc::new(leaf_model) as Arc<dyn Model>,
    );
    let mid_model = ScriptedModel::from_turns([
        costing(Turn::call("agent__Leaf", json!({"message": "x"})), 30),
        costing(Turn::text("mid a"), 40),
        costing(Turn::call("agent__Leaf", json!({"message": "y"})), 30),
        costing(Turn::text("mid b"), 40),
    ]);
    let mid = AgentTool::new(
        BasicAgent::new(
            AgentConfig::new("Mid").with_description("Mid."),
            Router::new().tool(leaf),
        ),
        Arc::new(mid_model) as Arc<dyn Model>,
    )
    .with_output({
        let outputs = outputs.clone();
        move |out, _| {
            outputs.lock().unwrap().push(out.clone());
            ToolResult::text(out.text.clone())
        }
    });
    let model = ScriptedModel::from_turns([
        costing(Turn::call("agent__Mid", json!({"message": "one"})), 100),
        costing(Turn::call("agent__Mid", json!({"message": "two"})), 200),
        costing(Turn::text("done"), 300),
    ]);
    let mut runner = Runner::new(test_agent("boss", Router::new().tool(mid)), model);
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "done");
    let by_path = out.usage_by_path();
    let by_path: Vec<(&str, u64, u64)> = by_path
        .iter()
        .map(|(path, u)| (path.as_str(), u.input_tokens, u.output_tokens))
        .collect();
    assert_eq!(
        by_path,
        [
            ("boss", 600, 3),
            ("boss/Mid", 140, 4),
            ("boss/Mid/Leaf", 4, 2)
        ]
    );
    assert_eq!(out.usage, used(744, 9));
    assert_eq!(out.own_usage, used(600, 3));
    assert_eq!(&*out.agent_path, "boss");
    // A child's own output has its own tokens and its child's.
    let mid_outputs = outputs.lock().unwrap();
    assert_eq!(mid_outputs[0].usage, used(72, 3));
    assert_eq!(&*mid_outputs[0].agent_path, "boss/Mid");
    assert_eq!(
        mid_outputs[0].usage_by_path().keys().collect::<Vec<_>>(),
        ["boss/Mid", "boss/Mid/Leaf"]
    );
}

/// A usage limit ends the run cleanly before the model call that would
/// pass it: the model is not asked again, and the error says why.
#[tokio::test]
async fn a_usage_limit_ends_the_run_before_the_next_model_call() {
    let model = Arc::new(ScriptedModel::from_turns([
        costing(Turn::call("sync", json!({})), 99),
        costing(Turn::call("sync", json!({})), 99),
        costing(Turn::text("never"), 1),
    ]));
    let mut runner = Runner::with_model_arc(
        test_agent("ops", Router::new().tool(Sync)),
        model.clone() as Arc<dyn Model>,
    )
    .with_usage_limit(150);
    let err = runner.run("sync twice").await.unwrap_err();
    assert!(
        matches!(
            err,
            RunError::UsageLimit {
                limit: 150,
                used: 200
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the usage limit of 150 tokens is reached (200 used): the run ended before its next model call"
    );
    assert_eq!(model.remaining(), 1, "the third model call was not made");
    // Both calls ran: the limit ends the run between steps, not inside one.
    assert_eq!(crate::agent_common::tool_results(runner.history()).len(), 2);

    // Under the limit, the same run completes.
    let model = ScriptedModel::from_turns([
        costing(Turn::call("sync", json!({})), 99),
        costing(Turn::call("sync", json!({})), 99),
        costing(Turn::text("done"), 1),
    ]);
    let mut runner =
        Runner::new(test_agent("ops", Router::new().tool(Sync)), model).with_usage_limit(202);
    assert_eq!(runner.run("sync twice").await.unwrap().text, "done");
}

/// The limit counts the tokens of child agents, which share it: a child
/// whose tokens reach it is not asked again, and neither is its parent.
#[tokio::test]
async fn a_usage_limit_counts_and_binds_child_agents() {
    let child_model = Arc::new(ScriptedModel::from_turns([
        costing(Turn::call("agent__Inner", json!({"message": "deeper"})), 59),
        costing(Turn::text("never"), 1),
    ]));
    let inner_model = Arc::new(ScriptedModel::from_turns([Turn::text("unused")]));
    let inner = AgentTool::new(
        BasicAgent::new(
            AgentConfig::new("Inner").with_description("Inner."),
            Router::new(),
        ),
        inner_model.clone() as Arc<dyn Model>,
    );
    let child_agent = BasicAgent::new(
        AgentConfig::new("Worker").with_description("Works."),
        Router::new().tool(inner),
    );
    let child = AgentTool::new(child_agent, child_model.clone() as Arc<dyn Model>);
    let model = Arc::new(ScriptedModel::from_turns([
        costing(Turn::call("agent__Worker", json!({"message": "go"})), 99),
        costing(Turn::text("never"), 1),
    ]));
    let mut runner = Runner::with_model_arc(
        test_agent("boss", Router::new().tool(child)),
        model.clone() as Arc<dyn Model>,
    )
    .with_usage_limit(150);
    let err = runner.run("go").await.unwrap_err();
    assert!(
        matches!(
            err,
            RunError::UsageLimit {
                limit: 150,
                used: 160
            }
        ),
        "{err:?}"
    );
    assert_eq!(model.remaining(), 1, "the parent was not asked again");
    assert_eq!(child_model.remaining(), 1, "the child was not asked again");
    assert_eq!(inner_model.remaining(), 1, "the grandchild was not asked");
    // The child's failed run is what its parent's model read.
    let results = crate::agent_common::tool_results(runner.history());
    assert_eq!(results.len(), 1);
    assert!(
        results[0].contains("the usage limit of 150 tokens is reached (160 used)"),
        "{results:?}"
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
