//! The OpenAI-compatible model against a local HTTP/1.1 server that checks
//! the real request shape and answers with real response shapes.
#![cfg(feature = "openai")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use crate::mock_http::{Answer, serve};

use agent_common::test_agent;
use hookwire::agent::Runner;
use hookwire::model::{Message, Model, ModelError, ModelRequest, OpenAiConfig, OpenAiModel};
use hookwire::{FnTool, Json, Router};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Weather {
    /// The city.
    city: String,
}

#[tokio::test]
async fn a_tool_calling_round_trip_speaks_the_chat_completions_wire_format() {
    let first = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [
                {"id": "call_abc", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
                {"id": "call_def", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}}
            ]}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}
    });
    let second = json!({
        "id": "chatcmpl-2", "object": "chat.completion", "created": 2, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": "Oslo is cold, Rome is warm."}}],
        "usage": {"prompt_tokens": 90, "completion_tokens": 8, "total_tokens": 98}
    });
    let (url, seen) = serve(vec![Answer::json(first), Answer::json(second)]);
    let url = format!("{url}/v1");
    let model = OpenAiModel::new(
        OpenAiConfig::new("gpt-test")
            .with_base_url(url)
            .with_api_key("sk-test"),
    )
    .unwrap();
    let tools = Router::new().tool(FnTool::new(
        "weather",
        "Weather for a city.",
        |w: Weather| async move {
            Json(json!({"city": w.city, "temp": if w.city == "Oslo" { -3 } else { 18 }}))
        },
    ));
    let mut agent = test_agent("forecaster", tools);
    *agent.config_mut() = agent.config_mut().clone().with_instruction("You forecast.");
    let mut runner = Runner::new(agent, model);
    let out = runner.run("Weather in Oslo and Rome?").await.unwrap();
    assert_eq!(out.text, "Oslo is cold, Rome is warm.");
    assert_eq!(out.usage.input_tokens, 140);
    assert_eq!(out.usage.output_tokens, 28);

    let r1 = seen.recv().unwrap();
    assert_eq!(r1.method, "POST");
    assert_eq!(r1.path, "/v1/chat/completions");
    assert_eq!(r1.headers["authorization"], "Bearer sk-test");
    assert!(r1.headers["content-type"].starts_with("application/json"));
    assert_eq!(r1.body["model"], "gpt-test");
    assert_eq!(
        r1.body["messages"],
        json!([
            {"role": "system", "content": "You forecast."},
            {"role": "user", "content": "Weather in Oslo and Rome?"}
        ])
    );
    let tool = &r1.body["tools"][0];
    assert_eq!(tool["type"], "function");
    assert_eq!(tool["function"]["name"], "weather");
    assert_eq!(tool["function"]["description"], "Weather for a city.");
    assert_eq!(tool["function"]["parameters"]["type"], "object");
    assert_eq!(
        tool["function"]["parameters"]["properties"]["city"]["type"],
        "string"
    );
    assert_eq!(tool["function"]["parameters"]["required"], json!(["city"]));

    let r2 = seen.recv().unwrap();
    let messages = r2.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5);
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_abc", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
            {"id": "call_def", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}}
        ]})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_abc", "content": "{\"city\":\"Oslo\",\"temp\":-3}"})
    );
    assert_eq!(
        messages[4],
        json!({"role": "tool", "tool_call_id": "call_def", "content": "{\"city\":\"Rome\",\"temp\":18}"})
    );
}

#[tokio::test]
async fn errors_from_the_service_are_model_errors() {
    let (url, _seen) = serve(vec![
        Answer::status(
            401,
            json!({"error": {"message": "Incorrect API key provided"}}),
        ),
        Answer::raw("not json"),
        Answer::json(json!({"choices": []})),
    ]);
    let url = format!("{url}/v1");
    let model = OpenAiModel::new(OpenAiConfig::new("m").with_base_url(url)).unwrap();
    let history = [Message::user("hi")];
    let req = ModelRequest::new("a", "", &history, &[]);
    let e = model.complete(req).await.unwrap_err();
    assert!(
        matches!(&e, ModelError::Http { status: 401, body, retry_after_ms: None } if body.contains("Incorrect API key")),
        "{e}"
    );
    let e = model.complete(req).await.unwrap_err();
    assert!(matches!(e, ModelError::InvalidResponse(_)), "{e}");
    let e = model.complete(req).await.unwrap_err();
    assert!(e.to_string().contains("choices[0].message"), "{e}");
}

#[test]
fn the_request_has_no_tools_key_without_tools_and_keeps_bad_arguments_verbatim() {
    let model = OpenAiModel::new(OpenAiConfig::new("m")).unwrap();
    let history = [
        Message::user("x"),
        Message::assistant_calls(
            "",
            vec![hookwire::ToolCall::new(
                "c1",
                "t",
                hookwire::ToolArgs::from_json("{oops"),
            )],
        ),
    ];
    let body = model.request_body(&ModelRequest::new("a", "", &history, &[]));
    assert!(body.get("tools").is_none());
    assert_eq!(
        body["messages"][1]["tool_calls"][0]["function"]["arguments"],
        "{oops"
    );
    assert_eq!(
        body["messages"].as_array().unwrap().len(),
        2,
        "no system message when empty"
    );
}
