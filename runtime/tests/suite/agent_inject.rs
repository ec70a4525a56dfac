//! Request-start injection (seed 004): run a tool through its chain and
//! inject the (assistant tool call, tool result) pair into the history.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_common::{TestAgent, test_agent};
use hookwire::agent::inject::{InjectionAction, ManualClock};
use hookwire::agent::{Frequency, HookEvent, RequestHook, Runner, TraceEvent};
use hookwire::model::{Message, PassthroughModel, ScriptedModel, Turn, TurnExpectation};
use hookwire::{FnTool, Router, ToolError, ToolResult, call::NoArgs};

/// A tool set with `memory__get` (returns the text in `value`, counting
/// calls), `broken` (fails) and `slow` (sleeps an hour).
fn agent(
    calls: Arc<AtomicUsize>,
    value: Arc<std::sync::Mutex<String>>,
    hooks: Vec<RequestHook>,
) -> TestAgent<impl hookwire::ToolSet> {
    let get = FnTool::new("memory__get", "Gets memories.", move |_: NoArgs| {
        let (calls, value) = (calls.clone(), value.clone());
        async move {
            calls.fetch_add(1, Ordering::SeqCst);
            ToolResult::text(value.lock().unwrap().clone())
        }
    });
    let broken = FnTool::new("broken", "Fails.", |_: NoArgs| async {
        Err::<String, _>(ToolError::tool_message("broken", "backend down", false))
    });
    let slow = FnTool::new("slow", "Sleeps.", |_: NoArgs| async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        "late"
    });
    let mut a = test_agent("memo", Router::new().tool(get).tool(broken).tool(slow));
    for h in hooks {
        *a.config_mut() = a.config_mut().clone().with_request_hook(h);
    }
    a
}

fn pairs(history: &[Message]) -> Vec<(String, String)> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                tool_call_id,
                result,
                ..
            } => Some((tool_call_id.to_string(), result.text_content())),
            _ => None,
        })
        .collect()
}

fn actions(trace: &[TraceEvent]) -> Vec<InjectionAction> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Injection { action, .. } => Some(action.clone()),
            _ => None,
        })
        .collect()
}

fn memory_hook() -> RequestHook {
    RequestHook::on_request_start("get").in_toolset("memory")
}

#[tokio::test]
async fn always_appends_a_pair_that_the_model_sees_before_its_first_request() {
    let calls = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(std::sync::Mutex::new("likes tea".to_owned()));
    let hook = memory_hook().with_frequency(Frequency::Always);
    let model = ScriptedModel::from_turns([
        Turn::text("noted").expecting(TurnExpectation {
            last_contains: Some("likes tea".into()),
            ..Default::default()
        }),
        Turn::text("again"),
    ]);
    let mut runner = Runner::new(agent(calls.clone(), value, vec![hook]), model);
    runner.run("hi").await.unwrap();
    runner.run("hi again").await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let roles: Vec<_> = runner.history().iter().map(Message::role).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    match &runner.history()[1] {
        Message::Assistant { tool_calls, .. } => {
            assert_eq!(&*tool_calls[0].name, "memory__get");
            assert!(tool_calls[0].id.starts_with("inject_memory__get_"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn append_if_changed_replaces_an_identical_pair_and_appends_a_changed_one() {
    let calls = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(std::sync::Mutex::new("v1".to_owned()));
    let mut runner = Runner::new(
        agent(calls.clone(), value.clone(), vec![memory_hook()]),
        PassthroughModel,
    );
    let first = runner.run("a").await.unwrap();
    let second = runner.run("b").await.unwrap();
    assert_eq!(actions(&first.trace), [InjectionAction::Appended]);
    assert_eq!(actions(&second.trace), [InjectionAction::Replaced]);
    let p = pairs(runner.history());
    assert_eq!(p.len(), 1, "replaced in place, not duplicated");
    assert_eq!(p[0].1, "v1");
    // The call and its result still share one id.
    match &runner.history()[1] {
        Message::Assistant { tool_calls, .. } => assert_eq!(*tool_calls[0].id, p[0].0),
        other => panic!("{other:?}"),
    }
    *value.lock().unwrap() = "v2".to_owned();
    let third = runner.run("c").await.unwrap();
    assert_eq!(actions(&third.trace), [InjectionAction::Appended]);
    let texts: Vec<String> = pairs(runner.history()).into_iter().map(|p| p.1).collect();
    assert_eq!(texts, ["v1", "v2"]);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

/// `append_if_changed` compares with the newest pair of the entry, not
/// with any earlier one: A, B, A gives three pairs (the second A differs
/// from B), and a repeat of the newest (A again) replaces it in place.
#[tokio::test]
async fn append_if_changed_compares_with_the_newest_pair_only() {
    let calls = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(std::sync::Mutex::new(String::new()));
    let mut runner = Runner::new(
        agent(calls.clone(), value.clone(), vec![memory_hook()]),
        PassthroughModel,
    );
    let mut acts = Vec::new();
    for (prompt, v) in [("1", "A"), ("2", "B"), ("3", "A"), ("4", "A")] {
        v.clone_into(&mut value.lock().unwrap());
        let out = runner.run(prompt).await.unwrap();
        acts.extend(actions(&out.trace));
    }
    assert_eq!(
        acts,
        [
            InjectionAction::Appended,
            InjectionAction::Appended,
            InjectionAction::Appended,
            InjectionAction::Replaced,
        ]
    );
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    let p = pairs(runner.history());
    let texts: Vec<&str> = p.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, ["A", "B", "A"], "the newest pair is A, after B");
    // What the model reads, in order: the last A replaced the third pair
    // in place (its id is the fourth injection's, on call and result).
    let seen: Vec<String> = runner
        .history()
        .iter()
        .map(|m| format!("{}: {}", m.role(), m.text()))
        .collect();
    assert_eq!(
        seen,
        [
            "user: 1",
            "assistant: ",
            "tool: A",
            "assistant: 1",
            "user: 2",
            "assistant: ",
            "tool: B",
            "assistant: 2",
            "user: 3",
            "assistant: ",
            "tool: A",
            "assistant: 3",
            "user: 4",
            "assistant: 4",
        ]
    );
    let call_ids: Vec<String> = runner
        .history()
        .iter()
        .filter_map(|m| match m {
            Message::Assistant { tool_calls, .. } => tool_calls.first().map(|c| c.id.to_string()),
            _ => None,
        })
        .collect();
    let result_ids: Vec<String> = p.into_iter().map(|(id, _)| id).collect();
    assert_eq!(call_ids, result_ids, "each call keeps its result's id");
    assert!(result_ids[2].ends_with("_4"), "{result_ids:?}");
}

#[tokio::test]
async fn a_ttl_reuses_the_result_until_it_expires() {
    let calls = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(std::sync::Mutex::new("prefs".to_owned()));
    let clock = Arc::new(ManualClock::new(1_000_000));
    let hook = memory_hook().with_ttl_minutes(60);
    let mut runner = Runner::new(agent(calls.clone(), value, vec![hook]), PassthroughModel)
        .with_clock(clock.clone());
    let a = runner.run("1").await.unwrap();
    let id1 = pairs(runner.history())[0].0.clone();
    assert!(id1.contains(&format!("_exp{}_", 1_000_000 + 3600)), "{id1}");
    clock.advance(59 * 60);
    let b = runner.run("2").await.unwrap();
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "fresh: the tool did not run"
    );
    clock.advance(2 * 60);
    let c = runner.run("3").await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(actions(&a.trace), [InjectionAction::Appended]);
    assert_eq!(actions(&b.trace), [InjectionAction::Fresh]);
    assert_eq!(actions(&c.trace), [InjectionAction::Replaced]);
    let p = pairs(runner.history());
    assert_eq!(p.len(), 1);
    assert!(
        p[0].0
            .contains(&format!("_exp{}_", 1_000_000 + 61 * 60 + 3600)),
        "new expiry: {}",
        p[0].0
    );
}

#[tokio::test(start_paused = true)]
async fn a_failing_or_slow_tool_skips_the_injection_and_never_fails_the_request() {
    let calls = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(std::sync::Mutex::new(String::new()));
    let mut slow = RequestHook::on_request_start("slow");
    slow.timeout_sec = Some(1.0);
    let hooks = vec![RequestHook::on_request_start("broken"), slow];
    let mut runner = Runner::new(agent(calls, value, hooks), PassthroughModel);
    let out = runner.run("hello").await.unwrap();
    assert_eq!(out.text, "hello");
    let acts = actions(&out.trace);
    assert!(
        matches!(&acts[0], InjectionAction::Skipped(why) if why.contains("backend down")),
        "{acts:?}"
    );
    assert!(
        matches!(&acts[1], InjectionAction::Skipped(why) if why.contains("timed out")),
        "{acts:?}"
    );
    assert_eq!(acts.len(), 2, "{acts:?}");
    assert!(pairs(runner.history()).is_empty());
}

#[tokio::test]
async fn on_completion_entries_run_after_a_final_answer() {
    let calls = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(std::sync::Mutex::new("saved".to_owned()));
    let hook = memory_hook()
        .at(HookEvent::OnCompletion)
        .with_frequency(Frequency::Always);
    let mut runner = Runner::new(agent(calls.clone(), value, vec![hook]), PassthroughModel);
    runner.run("x").await.unwrap();
    let roles: Vec<_> = runner.history().iter().map(Message::role).collect();
    assert_eq!(roles, ["user", "assistant", "assistant", "tool"]);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn unknown_events_and_a_zero_ttl_are_rejected() {
    let err = serde_json::from_str::<RequestHook>(
        r#"{"event": "on_pre_llm", "kind": "tool_call", "tool_name": "x"}"#,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("unknown variant `on_pre_llm`"),
        "{err}"
    );
    let hook: RequestHook = serde_json::from_str(
        r#"{"event": "on_request_start", "kind": "tool_call", "tool_name": "x",
            "refresh_condition": {"kind": "ttl", "ttl_minutes": 0}}"#,
    )
    .unwrap();
    assert!(
        hook.validate()
            .unwrap_err()
            .contains("ttl_minutes must be > 0")
    );
    assert_eq!(hook.frequency, Frequency::AppendIfChanged, "the default");
}

/// Any number in an entry is accepted and means something definite: a TTL
/// of `u64::MAX` minutes saturates (the result never expires), an infinite
/// timeout means a year (a tool taking an hour finishes), a NaN timeout
/// means zero (the injection is skipped as timed out, and the run goes on).
#[tokio::test(start_paused = true)]
async fn extreme_numbers_in_a_hook_entry_have_defined_meanings() {
    let calls = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(std::sync::Mutex::new("v".to_owned()));
    let forever = memory_hook().with_ttl_minutes(u64::MAX);
    let mut infinite = RequestHook::on_request_start("slow");
    infinite.timeout_sec = Some(f64::INFINITY);
    let mut nan = RequestHook::on_request_start("slow").with_frequency(Frequency::Always);
    nan.timeout_sec = Some(f64::NAN);
    let mut runner = Runner::new(
        agent(calls.clone(), value, vec![forever, infinite, nan]),
        PassthroughModel,
    );
    let out = runner.run("x").await.unwrap();
    assert_eq!(out.text, "x");
    assert_eq!(
        actions(&out.trace),
        [
            InjectionAction::Appended,
            InjectionAction::Appended,
            InjectionAction::Skipped("timed out after 0ns".into()),
        ]
    );
    let p = pairs(runner.history());
    let texts: Vec<&str> = p.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts, ["v", "late"], "the NaN entry injected nothing");
    assert!(
        p[0].0.contains(&format!("_exp{}_", u64::MAX)),
        "the expiry saturates: {}",
        p[0].0
    );
    // Never expires: the next run reuses it without calling the tool.
    let again = runner.run("y").await.unwrap();
    assert_eq!(actions(&again.trace)[0], InjectionAction::Fresh);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}
