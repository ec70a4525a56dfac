//! Typed final output (`Runner::run_typed`): what the model is asked (the
//! final-answer tool or the native schema), how a mismatch is sent back,
//! how many times, and the error after the last try; through the stream
//! and an agent's configured schema.

use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use hookwire::BoxFuture;
use hookwire::agent::{
    AgentConfig, BasicAgent, EventKind, RunError, RunStatus, Runner, TraceEvent, TypedOutput,
};
use hookwire::model::{
    Message, Model, ModelError, ModelRequest, ModelResponse, OutputSpec, ScriptedModel,
    ScriptedToolCall, Turn,
};
use hookwire::{FnTool, Json, Router};
use serde_json::{Value, json};

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Plan {
    /// The city.
    city: String,
    /// How many days.
    days: u32,
}

/// What one request carried: the tools offered, the output spec, the
/// messages.
#[derive(Debug, Clone)]
struct Asked {
    tools: Vec<String>,
    output: Option<OutputSpec>,
    messages: Vec<Message>,
}

/// A scripted model that notes each request.
struct Noting(ScriptedModel, Arc<Mutex<Vec<Asked>>>);

impl Model for Noting {
    fn name(&self) -> &str {
        "noting"
    }

    fn native_output(&self) -> bool {
        self.0.native_output()
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        self.1.lock().unwrap().push(Asked {
            tools: request.tools.iter().map(|t| t.name.clone()).collect(),
            output: request.output.cloned(),
            messages: request.messages.to_vec(),
        });
        self.0.complete(request)
    }
}

fn noting(model: ScriptedModel) -> (Noting, Arc<Mutex<Vec<Asked>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    (Noting(model, asked.clone()), asked)
}

fn agent() -> BasicAgent<impl hookwire::ToolSet + 'static> {
    BasicAgent::new(
        AgentConfig::new("planner"),
        Router::new().tool(FnTool::new(
            "weather",
            "Weather.",
            |_: serde_json::Map<String, Value>| async move { Json(json!({"temp": 3})) },
        )),
    )
}

fn retries(trace: &[TraceEvent]) -> Vec<(usize, String)> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::OutputRetry { attempt, error, .. } => Some((*attempt, error.clone())),
            _ => None,
        })
        .collect()
}

const BAD_DAYS: &str = "at `days`: invalid type: string \"two\", expected u32";

#[tokio::test]
async fn a_typed_answer_through_the_final_answer_tool_the_first_time() {
    let (model, asked) = noting(ScriptedModel::from_turns([
        Turn::call("weather", json!({})),
        Turn::call("final_result", json!({"city": "Oslo", "days": 3})),
    ]));
    let mut runner = Runner::new(agent(), model);
    let out: TypedOutput<Plan> = runner.run_typed("Plan Oslo").await.unwrap();
    assert_eq!(
        out.value,
        Plan {
            city: "Oslo".into(),
            days: 3
        }
    );
    assert_eq!(
        out.output.structured,
        Some(json!({"city": "Oslo", "days": 3}))
    );
    assert_eq!(out.output.text, r#"{"city":"Oslo","days":3}"#);
    assert!(retries(&out.output.trace).is_empty());
    let asked = asked.lock().unwrap().clone();
    // The scripted model has no native structured output: each request
    // offers the final-answer tool, with the schema as its parameters.
    assert_eq!(asked.len(), 2);
    for a in asked.iter() {
        assert_eq!(a.tools, ["weather", "final_result"]);
        let spec = a.output.as_ref().unwrap();
        assert_eq!(spec.name, "Plan");
        assert!(!spec.is_native());
        assert_eq!(spec.schema["required"], json!(["city", "days"]));
    }
    // The call is answered in the history, so the conversation goes on
    // well-formed.
    let last = runner.history().last().unwrap();
    assert_eq!(last.text(), "Final answer taken.");
    // A plain run afterwards asks for no schema.
    let (model, asked) = noting(ScriptedModel::from_turns([Turn::text("hi")]));
    let mut runner = Runner::new(agent(), model);
    let out = runner.run("hello").await.unwrap();
    assert_eq!(out.structured, None);
    assert!(asked.lock().unwrap()[0].output.is_none());
}

#[tokio::test]
async fn a_mismatch_is_sent_back_and_the_second_answer_taken() {
    let (model, asked) = noting(ScriptedModel::from_turns([
        Turn::call("final_result", json!({"city": "Oslo", "days": "two"})),
        Turn::call("final_result", json!({"city": "Oslo", "days": 2})),
    ]));
    let mut runner = Runner::new(agent(), model);
    let out = runner.run_typed::<Plan>("Plan Oslo").await.unwrap();
    assert_eq!(out.value.days, 2);
    assert_eq!(retries(&out.output.trace), [(1, BAD_DAYS.to_owned())]);
    // The model read the error as the final-answer tool's result.
    let asked = asked.lock().unwrap();
    let Some(Message::Tool { name, result, .. }) = asked[1].messages.last() else {
        panic!("{:?}", asked[1].messages)
    };
    assert_eq!(&**name, "final_result");
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        format!(
            "the answer does not match the schema: {BAD_DAYS}. Call `final_result` again with a corrected answer."
        )
    );
}

#[tokio::test]
async fn after_n_mismatches_the_run_fails_with_the_last_error() {
    let (model, asked) = noting(ScriptedModel::from_turns([
        Turn::call("final_result", json!({"city": "Oslo"})),
        Turn::call("final_result", json!({"city": "Oslo", "days": "two"})),
        Turn::call("final_result", json!({"city": "Oslo", "days": 2})),
    ]));
    let mut runner = Runner::new(agent(), model).with_output_retries(1);
    let Err(error) = runner.run_typed::<Plan>("Plan Oslo").await else {
        panic!("the run must fail")
    };
    assert!(matches!(&error, RunError::OutputInvalid { retries: 1, .. }));
    assert_eq!(
        error.to_string(),
        format!(
            "the model's answer does not match the output schema `Plan` after 1 retry: {BAD_DAYS}"
        )
    );
    // One first try and one retry: the third turn is never asked for.
    assert_eq!(asked.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_native_model_answers_json_text_and_reads_a_mismatch_as_a_user_message() {
    let model = ScriptedModel::from_turns([
        Turn::text("```json\n{\"city\": \"Oslo\"}\n```"),
        Turn::text("not json at all"),
        Turn::text(r#"{"city": "Bergen", "days": 1}"#),
    ])
    .with_native_output(true);
    let (model, asked) = noting(model);
    let mut runner = Runner::new(agent(), model).with_output_retries(2);
    let out = runner.run_typed::<Plan>("Plan").await.unwrap();
    assert_eq!(out.value.city, "Bergen");
    let errors = retries(&out.output.trace);
    assert_eq!(errors[0], (1, "missing field `days`".to_owned()));
    assert_eq!(errors[1].0, 2);
    assert!(
        errors[1]
            .1
            .starts_with("the answer is not JSON: expected ident at line 1 column 2"),
        "{errors:?}"
    );
    let asked = asked.lock().unwrap();
    // Asked natively: no final-answer tool.
    assert_eq!(asked[0].tools, ["weather"]);
    assert!(asked[0].output.as_ref().unwrap().is_native());
    assert_eq!(
        asked[1].messages.last().unwrap(),
        &Message::user(
            "Your answer does not match the output schema `Plan`: missing field `days`. Answer again with the JSON value only."
        )
    );
}

#[tokio::test]
async fn any_model_output_ends_in_an_answer_or_an_error_never_a_panic() {
    let raw = |args: Value| Turn {
        tool_calls: vec![ScriptedToolCall {
            id: None,
            name: "final_result".into(),
            arguments: args,
        }],
        ..Turn::default()
    };
    for turn in [
        raw(json!("{not json")),
        raw(json!("[1, 2]")),
        raw(Value::Null),
        raw(json!({"city": null, "days": -1})),
        Turn::text(""),
        Turn::text("{\"city\": \"a\", \"city\": \"b\", \"days\": 1}"),
        Turn::text("```"),
    ] {
        let model = ScriptedModel::from_turns([turn.clone()]);
        let mut runner = Runner::new(agent(), model).with_output_retries(0);
        match runner.run_typed::<Plan>("x").await {
            Err(RunError::OutputInvalid { error, .. }) => assert!(!error.is_empty()),
            other => panic!("{turn:?}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn the_stream_reports_each_retry_and_ends_with_the_value() {
    let model = ScriptedModel::from_turns([
        Turn::call("final_result", json!({"city": "Oslo", "days": "two"})),
        Turn::call("final_result", json!({"city": "Oslo", "days": 2})),
    ]);
    let mut runner = Runner::new(agent(), model);
    let events: Vec<_> = runner.stream_typed::<Plan>("Plan").collect().await;
    let retried: Vec<_> = events
        .iter()
        .filter_map(|e| match e.trace() {
            Some(TraceEvent::OutputRetry { attempt, error, .. }) => Some((*attempt, error.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(retried, [(1, BAD_DAYS.to_owned())]);
    let Some(EventKind::Done(Ok(out))) = events.last().map(|e| &e.kind) else {
        panic!("{:?}", events.last())
    };
    assert_eq!(out.structured, Some(json!({"city": "Oslo", "days": 2})));
    let typed = TypedOutput::<Plan>::try_from(out.clone()).unwrap();
    assert_eq!(typed.value.days, 2);
}

#[cfg(feature = "output-schema")]
#[tokio::test]
async fn an_agents_output_schema_makes_every_run_checked() {
    let schema = json!({
        "type": "object",
        "properties": {"verdict": {"enum": ["go", "stop"]}},
        "required": ["verdict"],
    });
    let agent = BasicAgent::new(
        AgentConfig::new("judge").with_output_schema("Verdict", schema),
        Router::new(),
    );
    let (model, asked) = noting(ScriptedModel::from_turns([
        Turn::call("final_result", json!({"verdict": "maybe"})),
        Turn::call("final_result", json!({"verdict": "go"})),
    ]));
    let mut runner = Runner::new(agent, model);
    let out = runner.run("Go?").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.structured, Some(json!({"verdict": "go"})));
    assert_eq!(
        retries(&out.trace),
        [(
            1,
            r#"at `verdict`: "maybe" is not one of "go" or "stop""#.to_owned()
        )]
    );
    assert_eq!(asked.lock().unwrap()[0].tools, ["final_result"]);
}

#[tokio::test]
async fn a_tool_of_the_agent_named_final_result_keeps_its_name() {
    let agent = BasicAgent::new(
        AgentConfig::new("a"),
        Router::new().tool(FnTool::new(
            "final_result",
            "Mine.",
            |_: serde_json::Map<String, Value>| async move { "mine" },
        )),
    );
    let (model, asked) = noting(ScriptedModel::from_turns([
        Turn::call("final_result", json!({})),
        Turn::call("final_result_", json!({"city": "Oslo", "days": 1})),
    ]));
    let mut runner = Runner::new(agent, model);
    let out = runner.run_typed::<Plan>("x").await.unwrap();
    assert_eq!(out.value.days, 1);
    assert_eq!(
        asked.lock().unwrap()[0].tools,
        ["final_result", "final_result_"]
    );
    assert_eq!(runner.history()[2].text(), "mine");
}

#[tokio::test]
async fn a_scripted_turn_can_expect_the_output_schema() {
    let script = r#"
turns:
  - expect: {output: Plan, tools_offered: [final_result]}
    tool_calls:
      - name: final_result
        arguments: {city: Oslo, days: 4}
"#;
    let model = ScriptedModel::from_yaml(script).unwrap();
    let mut runner = Runner::new(agent(), model);
    assert_eq!(runner.run_typed::<Plan>("x").await.unwrap().value.days, 4);
    let model = ScriptedModel::from_yaml(script).unwrap();
    let mut runner = Runner::new(agent(), model);
    let Err(e) = runner.run("x").await else {
        panic!()
    };
    assert_eq!(
        e.to_string(),
        "scripted turn 0 of model `scripted` expected a request for output `Plan`, but it asks for no output schema"
    );
}

#[tokio::test]
async fn a_typed_call_refused_while_paused_leaves_no_schema_for_the_next_run() {
    let (model, asked) = noting(ScriptedModel::from_turns([
        Turn::call("weather", json!({})),
        Turn::text("done"),
        Turn::text("plain again"),
    ]));
    let mut runner = Runner::new(agent(), model).with_approvals(
        hookwire::approval::Approvals::new(hookwire::approval::DeferAll),
    );
    runner.approvals().require("weather");
    let out = runner.run("weather?").await.unwrap();
    assert!(matches!(out.status, RunStatus::Paused { .. }), "{out:?}");
    let events: Vec<_> = runner.stream_typed::<Plan>("again").collect().await;
    let Some(EventKind::Done(Err(RunError::Paused))) = events.last().map(|e| &e.kind) else {
        panic!("a paused run refuses a new prompt: {events:?}")
    };
    for pending in runner.approvals().pending() {
        runner
            .approvals()
            .resolve(&pending.id(), hookwire::approval::ApprovalDecision::Approve)
            .unwrap();
    }
    let out = runner.resume().await.unwrap();
    assert_eq!(out.text, "done");
    assert_eq!(out.structured, None);
    // Nor does a later run inherit it.
    let out = runner.run("and now?").await.unwrap();
    assert_eq!((out.text.as_str(), out.structured), ("plain again", None));
    assert!(asked.lock().unwrap().iter().all(|a| a.output.is_none()));
}
