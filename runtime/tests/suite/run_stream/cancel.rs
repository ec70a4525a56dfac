//! A run is a transaction over its session: a step that does not end (its
//! stream or its `run` future dropped, a model error, a panic) leaves a
//! history with every tool call answered (the step is rolled back), so
//! the next run, and a state exported then, goes on; a resumed step that
//! does not end stays paused. The model checks each history it is sent as
//! a provider does.

use super::*;
use futures_util::FutureExt;
use hookwire::BoxFuture;
use hookwire::agent::{Agent, Journal, JournalError, RunState, RunStatus, StateSeal};
use hookwire::approval::{DeferAll, NeedsApproval};
use hookwire::model::{Message, ModelError, ModelRequest, ModelResponse};
use hookwire::{FnTool, ToolHandler, ToolSource, chain};
use serde_json::Value;
use tokio::sync::Notify;

/// Why a provider would refuse `history`, as OpenAI does: a model's turn
/// whose tool calls are not each answered by the tool messages right
/// after it, or a tool message that answers no call of the turn before.
pub(super) fn refused(history: &[Message]) -> Option<String> {
    let mut i = 0;
    while i < history.len() {
        let calls: Vec<&str> = match &history[i] {
            Message::Assistant { tool_calls, .. } => tool_calls.iter().map(|c| &*c.id).collect(),
            Message::Tool { tool_call_id, .. } => {
                return Some(format!(
                    "message {i}: result of `{tool_call_id}` with no call"
                ));
            }
            Message::User { .. } => Vec::new(),
        };
        let mut answers = Vec::new();
        while let Some(Message::Tool { tool_call_id, .. }) = history.get(i + 1 + answers.len()) {
            answers.push(&**tool_call_id);
        }
        let (mut want, mut got) = (calls.clone(), answers.clone());
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            return Some(format!(
                "tool_call_ids did not have response messages: message {i} calls {calls:?}, \
                 answered {answers:?}"
            ));
        }
        i += 1 + answers.len();
    }
    None
}

/// What the checking model does at one request.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    /// Fails with a 400 (not retried).
    Fail,
    /// Panics.
    Panic,
}

/// A scripted model that refuses a history a provider refuses (400), and
/// notes each history it was sent; at the request numbers in `faults` it
/// fails or panics instead.
pub(super) struct Checking {
    script: ScriptedModel,
    sent: Mutex<Vec<Vec<Message>>>,
    faults: Vec<(usize, Fault)>,
}

impl Checking {
    pub(super) fn new(turns: impl IntoIterator<Item = Turn>) -> Arc<Self> {
        Self::with_faults(turns, [])
    }

    fn with_faults(
        turns: impl IntoIterator<Item = Turn>,
        faults: impl IntoIterator<Item = (usize, Fault)>,
    ) -> Arc<Self> {
        Arc::new(Self {
            script: ScriptedModel::from_turns(turns),
            sent: Mutex::default(),
            faults: faults.into_iter().collect(),
        })
    }

    /// The history of the last request.
    pub(super) fn last_sent(&self) -> Vec<Message> {
        self.sent.lock().unwrap().last().cloned().unwrap()
    }
}

impl Model for Checking {
    fn name(&self) -> &str {
        "checking"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let number = {
            let mut sent = self.sent.lock().unwrap();
            sent.push(request.messages.to_vec());
            sent.len() - 1
        };
        if let Some(why) = refused(request.messages) {
            return Box::pin(std::future::ready(Err(ModelError::Http {
                status: 400,
                body: why,
                retry_after_ms: None,
            })));
        }
        match self.faults.iter().find(|(at, _)| *at == number) {
            Some((_, Fault::Panic)) => panic!("the model panics"),
            Some((_, Fault::Fail)) => Box::pin(std::future::ready(Err(ModelError::Http {
                status: 400,
                body: "bad request".into(),
                retry_after_ms: None,
            }))),
            None => self.script.complete(request),
        }
    }
}

/// A tool that says when it starts, then sleeps for a minute (the first
/// `slow` calls) or answers at once.
pub(super) struct Slow {
    started: Arc<Notify>,
    slow: Arc<std::sync::atomic::AtomicUsize>,
}

impl Tool for Slow {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "slow"
    }

    fn description(&self) -> &str {
        "Takes its time."
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        self.started.notify_one();
        let first = self
            .slow
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if first {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        Ok(ToolResult::text("slow done"))
    }
}

pub(super) fn slow(slow_calls: usize) -> (Slow, Arc<Notify>) {
    let started = Arc::new(Notify::new());
    let tool = Slow {
        started: started.clone(),
        slow: Arc::new(std::sync::atomic::AtomicUsize::new(slow_calls)),
    };
    (tool, started)
}

pub(super) fn quick() -> impl Tool<Args = NoArgs> {
    named("quick")
}

pub(super) fn named(name: &'static str) -> impl Tool<Args = NoArgs> {
    FnTool::new(
        name,
        "Answers at once.",
        |_: NoArgs| async move { "quick done" },
    )
}

/// The session goes on after a run that ended early: its history is one a
/// provider accepts, the next run completes on the same runner (the model
/// checks what it is sent), and so does a state exported now, imported
/// into a `fresh` runner.
pub(super) async fn goes_on<A: Agent, B: Agent>(
    runner: &mut Runner<A>,
    model: &Checking,
    fresh: impl FnOnce() -> Runner<B>,
) {
    assert_eq!(refused(runner.history()), None, "{:#?}", runner.history());
    let state = RunState::from_json(&runner.export_state().to_json().unwrap()).unwrap();
    let before = runner.history().to_vec();
    let out = runner.run("again").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    let mut expected = before.clone();
    expected.push(Message::user("again"));
    assert_eq!(model.last_sent(), expected);
    let mut imported = fresh().with_state_seal(StateSeal::unsigned());
    imported.import_state(state).unwrap();
    assert_eq!(imported.history(), before);
    let out = imported.run("again").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
}

#[tokio::test]
async fn a_dropped_stream_rolls_the_step_back_and_the_session_goes_on() {
    // `gated` waits for a person (who is asked later) when the run is
    // dropped.
    let make = || {
        let (tool, started) = slow(1);
        let agent = test_agent(
            "nap",
            Router::new().tool(tool).tool(quick()).route(
                named("gated").definition(),
                ToolSource::Function,
                chain!(NeedsApproval::new(true) => ToolHandler(named("gated"))),
            ),
        );
        (agent, started)
    };
    let model = Checking::new([
        Turn::call("quick", json!({}))
            .and_call("gated", json!({}))
            .and_call("slow", json!({})),
        Turn::text("done"),
        Turn::text("done"),
    ]);
    let (agent, started) = make();
    let mut runner = Runner::new(agent, model.clone()).with_approvals(Approvals::new(DeferAll));
    *runner.history_mut() = vec![Message::user("earlier"), Message::assistant("ok")];
    {
        let mut stream = runner.stream("nap");
        let mut events = Vec::new();
        let run = async {
            while let Some(event) = stream.next().await {
                events.push(event);
            }
        };
        tokio::select! {
            () = run => panic!("the run ended"),
            () = started.notified() => {}
        }
        // `quick` ran to its end beside the sleeping call.
    }
    // Nothing of the step: the answer with its calls is not in the
    // history (and no result is).
    assert_eq!(
        runner.history(),
        [
            Message::user("earlier"),
            Message::assistant("ok"),
            Message::user("nap")
        ]
    );
    // What waited belonged to the step: a state exported now carries none
    // of it (an import would refuse it).
    let state = runner.export_state();
    assert!(state.approvals.pending.is_empty() && state.pending_step.is_none());
    goes_on(&mut runner, &model, || {
        Runner::new(make().0, model.clone()).with_approvals(Approvals::new(DeferAll))
    })
    .await;
}

#[tokio::test]
async fn a_dropped_run_future_rolls_the_step_back_too() {
    let (tool, started) = slow(1);
    let model = Checking::new([
        Turn::call("slow", json!({})),
        Turn::text("done"),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(test_agent("nap", Router::new().tool(tool)), model.clone());
    tokio::select! {
        out = runner.run("nap") => panic!("the run ended: {out:?}"),
        () = started.notified() => {}
    }
    assert_eq!(runner.history(), [Message::user("nap")]);
    goes_on(&mut runner, &model, || {
        Runner::new(
            test_agent("nap", Router::new().tool(slow(0).0)),
            model.clone(),
        )
    })
    .await;
}

#[tokio::test]
async fn a_model_error_or_a_panic_mid_run_leaves_the_steps_before_it_whole() {
    for fault in [Fault::Fail, Fault::Panic] {
        let model = Checking::with_faults(
            [
                Turn::call("quick", json!({})),
                Turn::text("done"),
                Turn::text("done"),
            ],
            [(1, fault)],
        );
        let mut runner = Runner::new(test_agent("q", Router::new().tool(quick())), model.clone());
        let out = std::panic::AssertUnwindSafe(runner.run("go"))
            .catch_unwind()
            .await;
        match (fault, out) {
            (Fault::Fail, Ok(Err(RunError::Model(_)))) | (Fault::Panic, Err(_)) => {}
            (_, other) => panic!("unexpected: {:?}", other.map(|o| o.map(|o| o.status))),
        }
        let history = runner.history();
        assert_eq!(history.len(), 3, "{history:#?}");
        assert_eq!(history[0], Message::user("go"));
        assert_eq!(crate::agent_common::tool_results(history), ["quick done"]);
        goes_on(&mut runner, &model, || {
            Runner::new(test_agent("q", Router::new().tool(quick())), model.clone())
        })
        .await;
    }
}

/// A journal that records the model's answers and fails (or panics) at
/// the first tool call, as a durable session whose journal is gone.
struct Broken {
    panic: bool,
}

impl Journal for Broken {
    fn step<'a>(
        &'a self,
        name: &'a str,
        effect: BoxFuture<'a, Value>,
    ) -> BoxFuture<'a, Result<Value, JournalError>> {
        Box::pin(async move {
            if name.starts_with("tool ") {
                assert!(!self.panic, "the journal panics");
                return Err(JournalError::new(name, "the journal is gone"));
            }
            Ok(effect.await)
        })
    }
}

/// A journaled run whose journal fails or panics while the step's calls
/// run: the step is not in the history, and the session goes on.
#[tokio::test]
async fn a_journal_failing_while_the_calls_run_rolls_the_step_back() {
    for panic in [false, true] {
        let model = Checking::new([
            Turn::call("quick", json!({})).and_call("quick", json!({})),
            Turn::text("done"),
            Turn::text("done"),
        ]);
        let mut runner = Runner::new(test_agent("j", Router::new().tool(quick())), model.clone());
        let out = std::panic::AssertUnwindSafe(runner.run_journaled("go", &Broken { panic }))
            .catch_unwind()
            .await;
        match (panic, out) {
            (false, Ok(Err(RunError::Journal(_)))) | (true, Err(_)) => {}
            (_, other) => panic!("unexpected: {:?}", other.map(|o| o.map(|o| o.status))),
        }
        assert_eq!(runner.history(), [Message::user("go")]);
        goes_on(&mut runner, &model, || {
            Runner::new(test_agent("j", Router::new().tool(quick())), model.clone())
        })
        .await;
    }
}

/// A child agent's run is dropped with its parent's: the parent's history
/// has nothing of the step, and the session goes on.
#[tokio::test]
async fn a_dropped_stream_during_a_child_agent_rolls_the_parents_step_back() {
    let (tool, started) = slow(1);
    let child_model = Checking::new([Turn::call("slow", json!({})), Turn::text("child done")]);
    let worker = |tool: Slow, model: Arc<Checking>| {
        let agent = BasicAgent::new(
            AgentConfig::new("Worker").with_description("Works."),
            Router::new().tool(tool),
        );
        AgentTool::new(agent, model as Arc<dyn Model>)
    };
    let model = Checking::new([
        Turn::call("agent__Worker", json!({"message": "work"})),
        Turn::text("done"),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(
        test_agent(
            "boss",
            Router::new().tool(worker(tool, child_model.clone())),
        ),
        model.clone(),
    );
    {
        let mut stream = runner.stream("go");
        let run = async { while stream.next().await.is_some() {} };
        tokio::select! {
            () = run => panic!("the run ended"),
            () = started.notified() => {}
        }
    }
    assert_eq!(runner.history(), [Message::user("go")]);
    let fresh_child = Checking::new([Turn::text("child done")]);
    goes_on(&mut runner, &model, || {
        Runner::new(
            test_agent("boss", Router::new().tool(worker(slow(0).0, fresh_child))),
            model.clone(),
        )
    })
    .await;
}

/// A run dropped while a request-start injection runs keeps the history
/// it had, with its prompt, and the injections done before (it used to
/// lose the whole history); the injection ids stay unique.
#[tokio::test]
async fn a_run_dropped_during_an_injection_keeps_the_history() {
    let make = |tool: Slow| {
        let config = AgentConfig::new("inj")
            .with_request_hook(hookwire::agent::RequestHook::on_request_start("quick"))
            .with_request_hook(hookwire::agent::RequestHook::on_request_start("slow"));
        BasicAgent::new(config, Router::new().tool(tool).tool(quick()))
    };
    let (tool, started) = slow(1);
    let model = Checking::new([Turn::text("done"), Turn::text("done")]);
    let mut runner = Runner::new(make(tool), model.clone());
    *runner.history_mut() = vec![Message::user("earlier"), Message::assistant("ok")];
    tokio::select! {
        out = runner.run("go") => panic!("the run ended: {out:?}"),
        () = started.notified() => {}
    }
    let history = runner.history();
    assert_eq!(history.len(), 5, "{history:#?}");
    assert_eq!(
        history[..3],
        [
            Message::user("earlier"),
            Message::assistant("ok"),
            Message::user("go")
        ]
    );
    assert_eq!(crate::agent_common::tool_results(history), ["quick done"]);
    assert_eq!(refused(history), None);
    let out = runner.run("again").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    // Each injection's call id is new: no two results answer one id (an
    // unchanged result takes its older copy's place).
    assert_eq!(refused(&model.last_sent()), None);
    assert_eq!(
        crate::agent_common::tool_results(&model.last_sent()),
        ["quick done", "slow done"]
    );
}

/// Panics in `pre_tool_use` for `quick`, stops the run at `other`.
struct Rough;

impl hookwire::agent::lifecycle::LifecycleHooks for Rough {
    async fn pre_tool_use(
        &self,
        cx: &mut hookwire::agent::lifecycle::PreToolUse<'_>,
    ) -> hookwire::Decision {
        match cx.tool {
            "quick" => panic!("the hook panics"),
            "other" => hookwire::Decision::Stop("enough".into()),
            _ => hookwire::Decision::Continue,
        }
    }
}

/// A tool that panics, a lifecycle hook that panics or stops the run, and
/// a usage limit reached mid-run each end with whole steps: every call of
/// the history answered, and the session goes on.
#[tokio::test]
async fn a_tool_panic_a_failing_hook_or_a_usage_limit_leaves_whole_steps() {
    let boom = || {
        FnTool::new("boom", "Panics.", |_: NoArgs| async move {
            if true {
                panic!("the tool panics");
            }
            "never"
        })
    };
    // A panicking tool: an error result beside the other call's.
    let model = Checking::new([
        Turn::call("quick", json!({})).and_call("boom", json!({})),
        Turn::text("done"),
        Turn::text("done"),
        Turn::text("done"),
    ]);
    let make = || test_agent("t", Router::new().tool(quick()).tool(boom()));
    let mut runner = Runner::new(make(), model.clone());
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(runner.history().len(), 5, "{:#?}", runner.history());
    goes_on(&mut runner, &model, || Runner::new(make(), model.clone())).await;
    // Lifecycle hooks that panic or stop the run.
    let model = Checking::new([
        Turn::call("quick", json!({})).and_call("other", json!({})),
        Turn::text("done"),
        Turn::text("done"),
    ]);
    let make =
        || test_agent("h", Router::new().tool(quick()).tool(named("other"))).with_hooks(Rough);
    let mut runner = Runner::new(make(), model.clone());
    let out = runner.run("go").await.unwrap();
    assert!(matches!(out.status, RunStatus::Stopped { .. }), "{out:?}");
    assert_eq!(runner.history().len(), 4, "{:#?}", runner.history());
    goes_on(&mut runner, &model, || Runner::new(make(), model.clone())).await;
    // A usage limit reached after the first step.
    let model = Checking::new([
        costing(Turn::call("quick", json!({})), 10),
        Turn::text("done"),
        Turn::text("done"),
    ]);
    let make = || test_agent("u", Router::new().tool(quick()));
    let mut runner = Runner::new(make(), model.clone()).with_usage_limit(5);
    assert!(matches!(
        runner.run("go").await,
        Err(RunError::UsageLimit { .. })
    ));
    assert_eq!(runner.history().len(), 3, "{:#?}", runner.history());
    goes_on(&mut runner, &model, || {
        Runner::new(make(), model.clone()).with_usage_limit(5)
    })
    .await;
}
