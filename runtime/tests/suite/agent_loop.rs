//! The agent loop: model -> tool calls -> model, in order, with limits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_common::{TestAgent, test_agent};
use hookwire::agent::{RunError, RunStatus, Runner, TraceEvent};
use hookwire::model::{
    Message, ModelError, PassthroughModel, ScriptedModel, Turn, TurnExpectation,
};
use hookwire::{FnTool, Json, Router};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Sleep {
    ms: u64,
    tag: String,
}

fn calc() -> TestAgent<impl hookwire::ToolSet> {
    test_agent(
        "calc",
        Router::new().tool(FnTool::new(
            "add",
            "Adds two numbers.",
            |x: Add| async move { Json(x.a + x.b) },
        )),
    )
}

#[tokio::test]
async fn a_tool_call_round_trip_shows_the_model_the_result() {
    let model = ScriptedModel::from_turns([
        Turn::call("add", json!({"a": 2, "b": 40})).expecting(TurnExpectation {
            user_contains: Some("add".into()),
            tools_offered: vec!["add".into()],
            ..Default::default()
        }),
        Turn::text("The sum is 42.").expecting(TurnExpectation {
            last_contains: Some("42".into()),
            ..Default::default()
        }),
    ]);
    let mut runner = Runner::new(calc(), model);
    let out = runner.run("please add 2 and 40").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.text, "The sum is 42.");
    assert_eq!(out.steps, 2);
    let roles: Vec<_> = runner.history().iter().map(Message::role).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    match &runner.history()[2] {
        Message::Tool {
            tool_call_id,
            name,
            result,
        } => {
            assert_eq!(&**tool_call_id, "call_0_0");
            assert_eq!(&**name, "add");
            assert_eq!(result.text_content(), "42");
            assert!(!result.is_error);
        }
        other => panic!("expected a tool message, got {other:?}"),
    }
    assert!(
        out.trace
            .iter()
            .any(|e| matches!(e, TraceEvent::ToolCall(call) if &*call.tool == "add" && call.decision == "allowed"))
    );
}

#[tokio::test(start_paused = true)]
async fn tool_calls_run_concurrently_up_to_max_parallel_and_return_in_call_order() {
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (r, p) = (running.clone(), peak.clone());
    let tools = Router::new().tool(FnTool::new("sleep", "Sleeps.", move |s: Sleep| {
        let (r, p) = (r.clone(), p.clone());
        async move {
            let now = r.fetch_add(1, Ordering::SeqCst) + 1;
            p.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(s.ms)).await;
            r.fetch_sub(1, Ordering::SeqCst);
            s.tag
        }
    }));
    // Later calls finish first: the results must still come back in call order.
    let mut turn = Turn::default();
    for (i, ms) in [50, 40, 30, 20, 10, 5].iter().enumerate() {
        turn = turn.and_call("sleep", json!({"ms": ms, "tag": format!("t{i}")}));
    }
    let model = ScriptedModel::from_turns([turn, Turn::text("done")]);
    let mut runner = Runner::new(test_agent("sleeper", tools), model).with_max_parallel(3);
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "done");
    let results: Vec<String> = runner
        .history()
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                tool_call_id,
                result,
                ..
            } => Some(format!("{tool_call_id}={}", result.text_content())),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            "call_0_0=t0",
            "call_0_1=t1",
            "call_0_2=t2",
            "call_0_3=t3",
            "call_0_4=t4",
            "call_0_5=t5"
        ]
    );
    assert_eq!(
        peak.load(Ordering::SeqCst),
        3,
        "at most 3 at once, and 3 did overlap"
    );
}

#[tokio::test]
async fn the_step_limit_ends_a_run_that_never_answers() {
    let model =
        ScriptedModel::from_turns((0..10).map(|_| Turn::call("add", json!({"a": 1, "b": 1}))));
    let mut runner = Runner::new(calc(), model).with_max_steps(3);
    let err = runner.run("loop forever").await.unwrap_err();
    assert!(matches!(err, RunError::StepLimit(3)), "{err}");
}

#[tokio::test]
async fn a_script_that_runs_out_is_a_clear_error() {
    let model = ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 1}))]);
    let mut runner = Runner::new(calc(), model);
    let err = runner.run("hi").await.unwrap_err();
    match err {
        RunError::Model(ModelError::ScriptExhausted { played, .. }) => assert_eq!(played, 1),
        other => panic!("unexpected {other}"),
    }
    // The history keeps what happened before the failure: the call and its result.
    let roles: Vec<_> = runner.history().iter().map(Message::role).collect();
    assert_eq!(roles, ["user", "assistant", "tool"]);
}

#[tokio::test]
async fn a_mismatched_expectation_names_what_it_wanted() {
    let model = ScriptedModel::from_turns([Turn::text("x").expecting(TurnExpectation {
        user_contains: Some("weather".into()),
        ..Default::default()
    })]);
    let err = Runner::new(calc(), model)
        .run("add 1 and 2")
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("weather") && text.contains("add 1 and 2"),
        "{text}"
    );
}

#[tokio::test]
async fn bad_arguments_and_unknown_tools_become_error_results_and_the_run_goes_on() {
    let model = ScriptedModel::from_turns([
        Turn::call("add", json!({"a": "two", "b": 1}))
            .and_call("nope", json!({}))
            .and_call("add", json!("{not json")),
        Turn::text("recovered"),
    ]);
    let mut runner = Runner::new(calc(), model);
    let out = runner.run("x").await.unwrap();
    assert_eq!(out.text, "recovered");
    let errors: Vec<String> = runner
        .history()
        .iter()
        .filter_map(|m| match m {
            Message::Tool { result, .. } => {
                assert!(result.is_error);
                Some(result.text_content())
            }
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 3);
    assert!(
        errors[0].contains("invalid arguments for tool `add` at `a`"),
        "{}",
        errors[0]
    );
    assert_eq!(errors[1], "unknown tool `nope`");
    assert!(
        errors[2].starts_with("invalid arguments for tool `add`"),
        "{}",
        errors[2]
    );
}

#[tokio::test]
async fn passthrough_echoes_and_history_carries_over_between_runs() {
    let mut runner = Runner::new(calc(), PassthroughModel::new());
    assert_eq!(runner.run("one").await.unwrap().text, "one");
    assert_eq!(runner.run("two").await.unwrap().text, "two");
    assert_eq!(runner.history().len(), 4);
}

#[tokio::test]
async fn a_run_is_send_and_can_be_spawned() {
    let model =
        ScriptedModel::from_turns([Turn::call("add", json!({"a": 1, "b": 2})), Turn::text("3")]);
    let mut runner = Runner::new(calc(), model);
    let handle = tokio::spawn(async move { runner.run("1+2").await.map(|o| o.text) });
    assert_eq!(handle.await.unwrap().unwrap(), "3");
}

#[cfg(feature = "yaml")]
#[tokio::test]
async fn yaml_scripts_play_tool_calls_with_json_arguments() {
    let model = ScriptedModel::from_yaml(
        r#"
name: calc-script
turns:
  - expect: {user_contains: "sum"}
    tool_calls:
      - {id: first, name: add, arguments: {a: 20, b: 22}}
  - expect: {last_contains: "42"}
    text: "42 it is"
"#,
    )
    .unwrap();
    let mut runner = Runner::new(calc(), model);
    let out = runner.run("sum please").await.unwrap();
    assert_eq!(out.text, "42 it is");
    assert!(
        matches!(&runner.history()[2], Message::Tool { tool_call_id, .. } if &**tool_call_id == "first")
    );
    let err = ScriptedModel::from_yaml("turns: [{txt: 1}]").unwrap_err();
    assert!(err.to_string().contains("unknown field `txt`"), "{err}");
}

#[tokio::test]
async fn model_strings_pick_a_model_and_scripts_load_relative_to_a_base() {
    let dir = std::env::temp_dir().join(format!("hookwire-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("calc.json"),
        r#"[{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 1}}]}, {"text": "two"}]"#,
    )
    .unwrap();
    let model = hookwire::model::from_spec("playback:calc.json", Some(&dir)).unwrap();
    let mut runner = Runner::new(calc(), model);
    assert_eq!(runner.run("1+1").await.unwrap().text, "two");
    let missing = hookwire::model::from_spec("scripted:nope.yaml", Some(&dir))
        .err()
        .unwrap();
    assert!(missing.to_string().contains("nope.yaml"), "{missing}");
    let _ = std::fs::remove_dir_all(&dir);
    let pass = hookwire::model::from_spec("passthrough", None).unwrap();
    assert_eq!(pass.name(), "passthrough");
}
