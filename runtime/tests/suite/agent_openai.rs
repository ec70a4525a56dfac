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

/// A weather tool: -3 in Oslo, 18 elsewhere.
fn weather_tools() -> impl hookwire::ToolSet + 'static {
    Router::new().tool(FnTool::new(
        "weather",
        "Weather for a city.",
        |w: Weather| async move {
            Json(json!({"city": w.city, "temp": if w.city == "Oslo" { -3 } else { 18 }}))
        },
    ))
}

/// Model `gpt-test` at the local server `url`, with a key.
fn gpt_test(url: &str) -> OpenAiModel {
    OpenAiModel::new(
        OpenAiConfig::new("gpt-test")
            .with_base_url(format!("{url}/v1"))
            .with_api_key("sk-test"),
    )
    .unwrap()
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
    let model = gpt_test(&url);
    let mut agent = test_agent("forecaster", weather_tools());
    *agent.config_mut() = agent.config_mut().clone().with_instruction("You forecast.");
    let mut runner = Runner::new(agent, model);
    let out = runner.run("Weather in Oslo and Rome?").await.unwrap();
    assert_eq!(out.text, "Oslo is cold, Rome is warm.");
    assert_eq!(out.usage.input_tokens, 140);
    assert_eq!(out.usage.output_tokens, 28);

    let r1 = seen.recv().unwrap();
    assert_eq!(r1.method, "POST");
    assert_eq!(r1.path, "/v1/chat/completions");
    // A run nobody streams is not streamed.
    assert!(r1.body.get("stream").is_none(), "{}", r1.body);
    assert!(r1.body.get("stream_options").is_none(), "{}", r1.body);
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

/// A chat-completion chunk as the documentation shows it.
fn chunk(delta: serde_json::Value, finish: serde_json::Value) -> serde_json::Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
           "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]})
}

/// A chunk that does not finish the answer.
fn piece(delta: serde_json::Value) -> serde_json::Value {
    chunk(delta, serde_json::Value::Null)
}

/// The last chunk, with `stream_options.include_usage`: no choices, the usage.
fn usage_chunk(prompt: u64, completion: u64) -> serde_json::Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
           "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
}

/// A streamed run streams its chat completions: the text deltas reach the
/// run's events as they come, the tool calls are assembled from their
/// pieces (two calls, interleaved by index), the usage comes from the last
/// chunk.
#[tokio::test]
async fn a_streamed_run_streams_its_chat_completions() {
    use futures_util::StreamExt;
    use hookwire::agent::{EventKind, RunEvent};
    let first = Answer::data_events(&[
        piece(json!({"role": "assistant", "content": ""})),
        piece(json!({"content": "Let me "})),
        piece(json!({"content": "check."})),
        piece(
            json!({"tool_calls": [{"index": 0, "id": "call_abc", "type": "function", "function": {"name": "weather", "arguments": ""}}]}),
        ),
        piece(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"ci"}}]})),
        piece(
            json!({"tool_calls": [{"index": 1, "id": "call_def", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": "}}]}),
        ),
        piece(json!({"tool_calls": [{"index": 0, "function": {"arguments": "ty\": \"Oslo\"}"}}]})),
        piece(json!({"tool_calls": [{"index": 1, "function": {"arguments": "\"Rome\"}"}}]})),
        chunk(json!({}), json!("tool_calls")),
        usage_chunk(50, 20),
    ]);
    let second = Answer::data_events(&[
        piece(json!({"role": "assistant", "content": ""})),
        piece(json!({"content": "Oslo is cold, "})),
        piece(json!({"content": "Rome is warm."})),
        chunk(json!({}), json!("stop")),
        usage_chunk(90, 8),
    ]);
    let (url, seen) = serve(vec![first, second]);
    let model = gpt_test(&url);
    let mut runner = Runner::new(test_agent("forecaster", weather_tools()), model);
    let events: Vec<RunEvent> = runner.stream("Weather in Oslo and Rome?").collect().await;
    let deltas = agent_common::text_deltas(&events);
    assert_eq!(
        deltas,
        ["Let me ", "check.", "Oslo is cold, ", "Rome is warm."]
    );
    let Some(EventKind::Done(Ok(out))) = events.last().map(|e| &e.kind) else {
        panic!("{events:#?}")
    };
    assert_eq!(out.text, "Oslo is cold, Rome is warm.");
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (140, 28));
    let calls = agent_common::calls_run(&out.trace);
    assert_eq!(
        calls,
        [
            r#"call_abc weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#,
            r#"call_def weather({"city":"Rome"}) -> {"city":"Rome","temp":18}"#,
        ]
    );

    let r1 = seen.recv().unwrap();
    assert_eq!(r1.path, "/v1/chat/completions");
    assert_eq!(r1.body["stream"], true);
    assert_eq!(r1.body["stream_options"], json!({"include_usage": true}));
    let r2 = seen.recv().unwrap();
    assert_eq!(r2.body["stream"], true);
    assert_eq!(
        r2.body["messages"][2],
        json!({"role": "assistant", "content": "Let me check.", "tool_calls": [
            {"id": "call_abc", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
            {"id": "call_def", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}}
        ]})
    );
}

/// A stream that stops before its end, or reports an error, fails the call
/// with what happened; a server that answers a streamed request in one
/// piece is read as one delta.
#[tokio::test]
async fn a_broken_or_unstreamed_answer_to_a_streamed_request() {
    // No finish reason and no `[DONE]`: the connection closed early.
    let cut = Answer::data_only_events(&[piece(json!({"content": "Par"}))]);
    let error = Answer::data_only_events(&[
        json!({"error": {"message": "overloaded", "type": "server_error"}}),
    ]);
    let whole = Answer::json(json!({
        "id": "chatcmpl-2", "object": "chat.completion", "created": 2, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "All at once."}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}
    }));
    let nameless = Answer::data_events(&[
        piece(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "function": {"arguments": "{}"}}]}),
        ),
        chunk(json!({}), json!("tool_calls")),
    ]);
    let (url, _seen) = serve(vec![cut, error, whole, nameless]);
    let model =
        OpenAiModel::new(OpenAiConfig::new("m").with_base_url(format!("{url}/v1"))).unwrap();
    let history = [Message::user("hi")];
    let chunks = std::sync::Mutex::new(Vec::new());
    let sink = |c: &str| chunks.lock().unwrap().push(c.to_owned());
    let req = ModelRequest::new("a", "", &history, &[]).with_on_text(&sink);
    let e = model.complete(req).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "model request failed: the stream ended before the answer was complete"
    );
    let e = model.complete(req).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"invalid model response: the stream reported an error: {"message":"overloaded","type":"server_error"}"#
    );
    let answer = model.complete(req).await.unwrap();
    assert_eq!(answer.text, "All at once.");
    let e = model.complete(req).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid model response: streamed tool call 0 (`call_1`) has no function name"
    );
    assert_eq!(*chunks.lock().unwrap(), ["Par", "All at once."]);
}
