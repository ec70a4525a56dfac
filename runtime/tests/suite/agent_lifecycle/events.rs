//! Which events fire, in what order, and what they report: every event
//! once, runner hooks after the agent's, a tool's source.

use super::*;

use std::time::Duration;

use hookwire::FailurePolicy;
use hookwire::agent::lifecycle::{EVENTS, LifecycleGuard};
use hookwire::declare::slot::{LifecycleSlot, Slot, Slotted};
use hookwire::matcher::MatchTarget;

#[tokio::test]
async fn every_event_fires_once_in_order() {
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let agent = calc(ran.clone()).with_hooks(Recorder(log.clone()));
    let model = ScriptedModel::from_turns([
        Turn::call("add", json!({"a": 1, "b": 2})).and_call("nope", json!({})),
        Turn::text("3"),
    ]);
    Runner::new(agent, model).run("go").await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "execution_start(0)",
            "user_prompt_submit(go)",
            "step_start(0)",
            "pre_tool_use(add)",
            "post_tool_use(add)",
            "pre_tool_use(nope)",
            "post_tool_failure(nope)",
            "step_end(0,2)",
            "step_start(1)",
            "stop(3)",
            "step_end(1,0)",
            "execution_end(completed)",
        ]
    );
    // A failing run reports agent_failed then execution_end.
    let log2: Log = Arc::default();
    let agent = calc(ran).with_hooks(Recorder(log2.clone()));
    let _ = Runner::new(agent, ScriptedModel::from_turns([]))
        .run("x")
        .await;
    let log2 = log2.lock().unwrap();
    assert!(
        log2[log2.len() - 2].starts_with("agent_failed(the script"),
        "{log2:?}"
    );
    assert_eq!(log2[log2.len() - 1], "execution_end(failed)");
}

/// The recorder in a slot, as generated code holds a declared lifecycle
/// hook (built from the log here, where generated code builds it with
/// `Default`).
struct RecorderSlot;

impl Slot for RecorderSlot {
    type Deps = Log;
    type Hook = Recorder;

    fn build(log: &Log) -> Recorder {
        Recorder(log.clone())
    }
}

impl LifecycleSlot for RecorderSlot {}

/// The recorder as a generated agent holds a hook declared with a matcher
/// that has a `step:` part, a failure policy and a timeout: slotted,
/// guarded, matched, in the agent's tuple.
fn declared(log: Log) -> impl LifecycleHooks + 'static {
    (ForTools::new(
        |_: &MatchTarget<'_>| true,
        LifecycleGuard::new(Slotted::<RecorderSlot>::new(&log))
            .with_policy(FailurePolicy::FailOpen)
            .with_timeout(Duration::from_secs(60)),
    )
    .with_step_events(),)
}

/// What the hooks `make` builds saw of two runs: one that completes (a call
/// that succeeds, one that fails, a final answer) and one that fails.
async fn two_runs<H: LifecycleHooks + 'static>(make: impl Fn(Log) -> H) -> Vec<String> {
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let model = ScriptedModel::from_turns([
        Turn::call("add", json!({"a": 1, "b": 2})).and_call("nope", json!({})),
        Turn::text("3"),
    ]);
    let agent = calc(ran.clone()).with_hooks(make(log.clone()));
    Runner::new(agent, model).run("go").await.unwrap();
    let agent = calc(ran).with_hooks(make(log.clone()));
    let failed = Runner::new(agent, ScriptedModel::from_turns([]))
        .run("x")
        .await;
    assert!(failed.is_err());
    log.lock().unwrap().clone()
}

/// Every event of the table reaches a hook through every forwarder around
/// it: the slot, the guard, the matcher, the agent's tuple, the reference
/// the agent lends and the runner's tuple. It sees what the bare hook sees,
/// and that is every event the table lists.
#[tokio::test]
async fn every_event_reaches_a_declared_hook_through_every_forwarder() {
    let bare = two_runs(Recorder).await;
    let wrapped = two_runs(declared).await;
    assert_eq!(wrapped, bare);
    let mut seen: Vec<&str> = wrapped.iter().filter_map(|e| e.split('(').next()).collect();
    seen.sort_unstable();
    seen.dedup();
    let mut events = EVENTS.to_vec();
    events.sort_unstable();
    assert_eq!(seen, events);
}

/// Extra runner-level hooks run after the agent's own.
#[tokio::test]
async fn runner_hooks_run_after_the_agents_hooks() {
    let log: Log = Arc::default();
    let ran: Log = Arc::default();
    let agent = calc(ran).with_hooks(Fixed("agent", Decision::Continue, log.clone()));
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 1})), Turn::text("ok")]);
    let mut runner =
        Runner::new(agent, model).with_hooks(Fixed("runner", Decision::Continue, log.clone()));
    runner.run("x").await.unwrap();
    assert_eq!(*log.lock().unwrap(), ["agent", "runner"]);
}

/// Records the source every tool event reports.
struct Sources(Log);

impl LifecycleHooks for Sources {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        let line = format!("pre {} {}", cx.tool, cx.source);
        self.0.lock().unwrap().push(line);
        Decision::Continue
    }
    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        let line = format!("post {} {}", cx.call.name, cx.source);
        self.0.lock().unwrap().push(line);
    }
}

#[tokio::test]
async fn a_function_tool_named_like_an_mcp_tool_is_seen_as_a_function_tool() {
    // `a__b` has the shape of an MCP tool's name (`server__tool`), but it
    // is a function tool: hooks, matchers and the trace get the source the
    // tool set dispatches it with, not one guessed from the name.
    let log: Log = Arc::default();
    let selected: Log = Arc::default();
    let ran: Log = Arc::default();
    let agent = adder("a__b", ran.clone()).with_hooks((
        Sources(log.clone()),
        ForTools::new(
            "source:mcp".parse::<hookwire::matcher::Matcher>().unwrap(),
            Fixed(
                "mcp-only",
                Decision::Deny("not for MCP tools".into()),
                selected.clone(),
            ),
        ),
    ));
    let model =
        ScriptedModel::from_turns([Turn::call("a__b", json!({"a": 2, "b": 3})), Turn::text("5")]);
    let out = Runner::new(agent, model).run("x").await.unwrap();
    assert_eq!(*ran.lock().unwrap(), ["a__b(2,3)"]);
    assert!(
        selected.lock().unwrap().is_empty(),
        "a `source:mcp` hook selected a function tool"
    );
    assert_eq!(
        *log.lock().unwrap(),
        ["pre a__b function", "post a__b function"]
    );
    let sources: Vec<_> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some(format!("{} {}", call.tool, call.source)),
            _ => None,
        })
        .collect();
    assert_eq!(sources, ["a__b function"]);
}
