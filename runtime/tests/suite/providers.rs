//! Native providers (feature `providers`) against a local server speaking
//! each provider's documented wire format: what the provider received
//! (system, messages, tool schemas, tool results) and what the agent got
//! back (the tool call run, the final text, the usage).
#![cfg(feature = "providers")]

use crate::agent_common::test_agent;
use crate::mock_http::{Answer, Seen, serve};

use std::process::Command;
use std::sync::mpsc::Receiver;

use hookwire::agent::{RunStatus, Runner};
use hookwire::model::{
    Message, Model, ModelError, ModelRequest, Provider, ProviderConfig, ProviderModel, from_spec,
};
use hookwire::{FnTool, Json, Router, ToolDefinition};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Weather {
    /// The city.
    city: String,
}

fn weather_tools() -> impl hookwire::ToolSet + 'static {
    Router::new().tool(FnTool::new(
        "weather",
        "Weather for a city.",
        |w: Weather| async move { Json(json!({"city": w.city, "temp": -3})) },
    ))
}

/// Runs the forecaster agent on `model`: one tool call, then an answer.
async fn forecast(model: ProviderModel) -> hookwire::agent::RunOutput {
    let mut agent = test_agent("forecaster", weather_tools());
    *agent.config_mut() = agent.config_mut().clone().with_instruction("You forecast.");
    let mut runner = Runner::new(agent, model);
    let out = runner.run("Weather in Oslo?").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    out
}

/// The tool calls of a run as `id tool(arguments) -> result`.
fn calls_run(out: &hookwire::agent::RunOutput) -> Vec<String> {
    crate::agent_common::calls_run(&out.trace)
}

fn next(seen: &Receiver<Seen>) -> Seen {
    seen.recv_timeout(std::time::Duration::from_secs(10))
        .unwrap()
}

/// The weather tool's input schema as the agent offers it.
fn weather_schema() -> Value {
    let defs: Vec<ToolDefinition> = hookwire::ToolSet::definitions(&weather_tools());
    defs[0].input_schema.clone()
}

#[tokio::test]
async fn anthropic_messages_streamed_with_a_tool_call_end_to_end() {
    // The Messages API's streaming events, as its documentation shows them.
    let first = Answer::named_events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 472, "output_tokens": 2}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ("ping", json!({"type": "ping"})),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me check."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_01A", "name": "weather", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Os"}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "lo\"}"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 89}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let second = Answer::named_events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_02", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 600, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Oslo is "}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "-3 degrees."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 12}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Anthropic, "claude-test")
            .with_api_key("sk-ant-test")
            .with_base_url(url)
            .with_streaming(true),
    )
    .unwrap();
    assert_eq!(model.name(), "anthropic:claude-test");
    let out = forecast(model).await;
    assert_eq!(out.text, "Oslo is -3 degrees.");
    assert_eq!(
        calls_run(&out),
        [r#"toolu_01A weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#]
    );
    assert_eq!(
        (out.usage.input_tokens, out.usage.output_tokens),
        (1072, 101)
    );

    let r1 = next(&seen);
    assert_eq!(
        (r1.method.as_str(), r1.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r1.headers["x-api-key"], "sk-ant-test");
    assert!(r1.headers.contains_key("anthropic-version"));
    assert_eq!(r1.body["model"], "claude-test");
    assert_eq!(r1.body["stream"], true);
    assert_eq!(r1.body["system"], "You forecast.");
    assert_eq!(r1.body["messages"].as_array().map(Vec::len), Some(1));
    assert_eq!(r1.body["messages"][0]["role"], "user");
    assert_eq!(
        text_of(&r1.body["messages"][0]["content"]),
        "Weather in Oslo?"
    );
    assert_eq!(
        r1.body["tools"],
        json!([{"name": "weather", "description": "Weather for a city.", "input_schema": weather_schema()}])
    );

    let r2 = next(&seen);
    let messages = r2.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(messages[1]["role"], "assistant");
    let blocks = messages[1]["content"].as_array().unwrap();
    assert_eq!(blocks[0], json!({"type": "text", "text": "Let me check."}));
    assert_eq!(
        blocks[1],
        json!({"type": "tool_use", "id": "toolu_01A", "name": "weather", "input": {"city": "Oslo"}})
    );
    assert_eq!(messages[2]["role"], "user");
    let result = &messages[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_01A");
    assert_eq!(text_of(&result["content"]), r#"{"city":"Oslo","temp":-3}"#);
}

/// A run someone streams streams its provider requests too (whatever the
/// model's own `streaming` setting), and the model's text reaches the run's
/// events as it arrives, chunk by chunk.
#[tokio::test]
async fn a_streamed_run_streams_its_provider_requests_and_their_text() {
    use futures_util::StreamExt;
    use hookwire::agent::{EventKind, RunEvent};
    let answer = Answer::named_events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Oslo is "}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "cold."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 4}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let (url, seen) = serve(vec![answer]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Anthropic, "claude-test")
            .with_api_key("sk-ant-test")
            .with_base_url(url),
    )
    .unwrap();
    assert!(!model.config().streaming);
    let mut runner = Runner::new(test_agent("forecaster", weather_tools()), model);
    let events: Vec<RunEvent> = runner.stream("Weather in Oslo?").collect().await;
    let deltas = crate::agent_common::text_deltas(&events);
    assert_eq!(deltas, ["Oslo is ", "cold."]);
    let Some(EventKind::Done(Ok(out))) = events.last().map(|e| &e.kind) else {
        panic!("{events:#?}")
    };
    assert_eq!(out.text, "Oslo is cold.");
    assert_eq!(next(&seen).body["stream"], true);
}

/// A content that is a string or a list of text blocks, as text.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        other => panic!("not a content: {other}"),
    }
}

#[tokio::test]
async fn anthropic_not_streamed_reads_the_messages_response() {
    let answer = Answer::json(json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [
            {"type": "tool_use", "id": "toolu_01B", "name": "weather", "input": {"city": "Oslo"}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 30, "output_tokens": 7}
    }));
    let (url, seen) = serve(vec![answer]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Anthropic, "claude-test")
            .with_api_key("k")
            .with_base_url(url)
            .with_streaming(false),
    )
    .unwrap();
    let history = [Message::user("Weather in Oslo?")];
    let tools = hookwire::ToolSet::definitions(&weather_tools());
    let response = model
        .complete(ModelRequest::new("a", "", &history, &tools))
        .await
        .unwrap();
    assert_eq!(response.tool_calls.len(), 1);
    assert_eq!(&*response.tool_calls[0].id, "toolu_01B");
    assert_eq!(&*response.tool_calls[0].name, "weather");
    assert_eq!(
        response.tool_calls[0].arguments.to_value().unwrap(),
        json!({"city": "Oslo"})
    );
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (30, 7)
    );
    let r = next(&seen);
    assert!(
        r.body.get("stream").is_none_or(|s| s == false),
        "{}",
        r.body
    );
    assert!(r.body.get("system").is_none(), "no system without one");
}

#[tokio::test]
async fn openai_chat_streamed_with_a_tool_call_end_to_end() {
    // Chat-completions chunks as the documentation shows them: the call's
    // arguments in pieces, then a last chunk with the usage.
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let usage = |p: u64, c: u64| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
               "choices": [], "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}})
    };
    let first = Answer::data_events(&[
        chunk(
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_abc", "type": "function", "function": {"name": "weather", "arguments": ""}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"Oslo\"}"}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        usage(50, 20),
    ]);
    let second = Answer::data_events(&[
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(json!({"content": "Oslo is "}), Value::Null),
        chunk(json!({"content": "cold."}), Value::Null),
        chunk(json!({}), json!("stop")),
        usage(90, 8),
    ]);
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::OpenAi, "gpt-test")
            .with_api_key("sk-test")
            .with_base_url(format!("{url}/v1"))
            .with_streaming(true),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "Oslo is cold.");
    assert_eq!(
        calls_run(&out),
        [r#"call_abc weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#]
    );
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (140, 28));

    let r1 = next(&seen);
    assert_eq!(r1.path, "/v1/chat/completions");
    assert_eq!(r1.headers["authorization"], "Bearer sk-test");
    assert_eq!(r1.body["stream"], true);
    assert_eq!(
        r1.body["messages"],
        json!([
            {"role": "system", "content": "You forecast."},
            {"role": "user", "content": "Weather in Oslo?"}
        ])
    );
    assert_eq!(
        r1.body["tools"],
        json!([{"type": "function", "function": {"name": "weather", "description": "Weather for a city.", "parameters": weather_schema(), "strict": false}}])
    );
    let r2 = next(&seen);
    let messages = r2.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert_eq!(messages[2]["role"], "assistant");
    let call = &messages[2]["tool_calls"][0];
    assert_eq!(call["id"], "call_abc");
    assert_eq!(call["function"]["name"], "weather");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Oslo"}));
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_abc", "content": "{\"city\":\"Oslo\",\"temp\":-3}"})
    );
}

#[tokio::test]
async fn gemini_maps_the_request_and_the_function_call_answer() {
    let first = Answer::json(json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}}
        ]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 5, "totalTokenCount": 35},
        "modelVersion": "gemini-test"
    }));
    let second = Answer::json(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Cold in Oslo."}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 4, "totalTokenCount": 54}
    }));
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Gemini, "gemini-test")
            .with_api_key("g-key")
            .with_base_url(url)
            .with_streaming(false),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "Cold in Oslo.");
    assert_eq!(calls_run(&out).len(), 1);
    assert!(
        calls_run(&out)[0].ends_with(r#"weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#)
    );
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (80, 9));

    let r1 = next(&seen);
    assert_eq!(r1.path, "/v1beta/models/gemini-test:generateContent");
    assert_eq!(r1.headers["x-goog-api-key"], "g-key");
    assert_eq!(
        r1.body["systemInstruction"]["parts"][0]["text"],
        "You forecast."
    );
    assert_eq!(
        r1.body["contents"],
        json!([{"role": "user", "parts": [{"text": "Weather in Oslo?"}]}])
    );
    let declaration = &r1.body["tools"][0]["functionDeclarations"][0];
    assert_eq!(declaration["name"], "weather");
    assert_eq!(declaration["description"], "Weather for a city.");
    assert_eq!(declaration["parametersJsonSchema"], weather_schema());
    let r2 = next(&seen);
    let contents = r2.body["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 3, "{contents:#?}");
    assert_eq!(contents[1]["role"], "model");
    assert_eq!(
        contents[1]["parts"][0]["functionCall"]["args"],
        json!({"city": "Oslo"})
    );
    let response = &contents[2]["parts"][0]["functionResponse"];
    assert_eq!(response["name"], "weather", "{contents:#?}");
    assert!(
        response["response"].to_string().contains("temp"),
        "{response}"
    );
}

#[tokio::test]
async fn ollama_maps_the_request_and_the_tool_call_answer() {
    let first = Answer::json(json!({
        "model": "qwen3", "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "",
                    "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Oslo"}}}]},
        "done": true, "done_reason": "stop", "prompt_eval_count": 26, "eval_count": 10
    }));
    let second = Answer::json(json!({
        "model": "qwen3", "created_at": "2025-01-01T00:00:01Z",
        "message": {"role": "assistant", "content": "It is -3 in Oslo."},
        "done": true, "done_reason": "stop", "prompt_eval_count": 60, "eval_count": 9
    }));
    let (url, seen) = serve(vec![first, second]);
    // OLLAMA_HOST's form: host and port, the scheme optional.
    let host = url.trim_start_matches("http://").to_owned();
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Ollama, "qwen3")
            .with_base_url(host)
            .with_streaming(false),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "It is -3 in Oslo.");
    assert_eq!(calls_run(&out).len(), 1);
    assert!(
        calls_run(&out)[0].ends_with(r#"weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#)
    );
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (86, 19));

    let r1 = next(&seen);
    assert_eq!(r1.path, "/api/chat");
    assert_eq!(r1.body["model"], "qwen3");
    assert_eq!(r1.body["stream"], false);
    assert_eq!(
        r1.body["messages"],
        json!([
            {"role": "system", "content": "You forecast."},
            {"role": "user", "content": "Weather in Oslo?"}
        ])
    );
    assert_eq!(r1.body["tools"][0]["function"]["name"], "weather");
    assert_eq!(
        r1.body["tools"][0]["function"]["parameters"],
        weather_schema()
    );
    let r2 = next(&seen);
    let messages = r2.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        json!({"city": "Oslo"})
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["content"], r#"{"city":"Oslo","temp":-3}"#);
}

#[tokio::test]
async fn gemini_streamed_reads_the_server_sent_chunks() {
    let first = Answer::data_only_events(&[json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}}
        ]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 5, "totalTokenCount": 35}
    })]);
    let second = Answer::data_only_events(&[
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Cold "}]}, "index": 0}]}),
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "in Oslo."}]}, "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 4, "totalTokenCount": 54}}),
    ]);
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Gemini, "gemini-test")
            .with_api_key("g-key")
            .with_base_url(url)
            .with_streaming(true),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "Cold in Oslo.");
    assert_eq!(calls_run(&out).len(), 1);
    assert!(
        calls_run(&out)[0].ends_with(r#"weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#)
    );
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (80, 9));
    let r1 = next(&seen);
    assert_eq!(
        r1.path,
        "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
    );
    let r2 = next(&seen);
    assert_eq!(
        r2.body["contents"][2]["parts"][0]["functionResponse"]["name"],
        "weather"
    );
}

#[tokio::test]
async fn ollama_streamed_reads_the_json_lines() {
    let first = Answer::ndjson(&[
        json!({"model": "qwen3", "created_at": "2025-01-01T00:00:00Z",
               "message": {"role": "assistant", "content": "",
                           "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Oslo"}}}]},
               "done": false}),
        json!({"model": "qwen3", "created_at": "2025-01-01T00:00:00Z",
               "message": {"role": "assistant", "content": ""},
               "done": true, "done_reason": "stop", "prompt_eval_count": 26, "eval_count": 10}),
    ]);
    let second = Answer::ndjson(&[
        json!({"model": "qwen3", "created_at": "2025-01-01T00:00:01Z",
               "message": {"role": "assistant", "content": "It is "}, "done": false}),
        json!({"model": "qwen3", "created_at": "2025-01-01T00:00:01Z",
               "message": {"role": "assistant", "content": "-3."}, "done": false}),
        json!({"model": "qwen3", "created_at": "2025-01-01T00:00:01Z",
               "message": {"role": "assistant", "content": ""},
               "done": true, "done_reason": "stop", "prompt_eval_count": 60, "eval_count": 9}),
    ]);
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Ollama, "qwen3")
            .with_base_url(url)
            .with_streaming(true),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "It is -3.");
    assert_eq!(calls_run(&out).len(), 1);
    assert!(
        calls_run(&out)[0].ends_with(r#"weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#)
    );
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (86, 19));
    assert_eq!(next(&seen).body["stream"], true);
    let r2 = next(&seen);
    assert_eq!(r2.body["messages"][3]["role"], "tool");
}

#[tokio::test]
async fn openai_responses_maps_the_request_and_the_function_call_answer() {
    let first = Answer::json(json!({
        "id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-test",
        "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "weather",
                    "arguments": "{\"city\":\"Oslo\"}", "status": "completed"}],
        "usage": {"input_tokens": 20, "output_tokens": 6, "total_tokens": 26}
    }));
    let second = Answer::json(json!({
        "id": "resp_2", "object": "response", "created_at": 2, "status": "completed", "model": "gpt-test",
        "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": "Cold in Oslo.", "annotations": []}]}],
        "usage": {"input_tokens": 40, "output_tokens": 4, "total_tokens": 44}
    }));
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::OpenAiResponses, "gpt-test")
            .with_api_key("sk-test")
            .with_base_url(format!("{url}/v1"))
            .with_streaming(false),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "Cold in Oslo.");
    assert_eq!(
        calls_run(&out),
        [r#"call_1 weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#]
    );
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (60, 10));
    let r1 = next(&seen);
    assert_eq!(r1.path, "/v1/responses");
    assert_eq!(r1.headers["authorization"], "Bearer sk-test");
    let tool = &r1.body["tools"][0];
    assert_eq!(
        (tool["type"].as_str(), tool["name"].as_str()),
        (Some("function"), Some("weather"))
    );
    assert_eq!(tool["parameters"], weather_schema());
    assert!(r1.body.to_string().contains("You forecast."), "{}", r1.body);
    let r2 = next(&seen);
    let input = r2.body["input"].as_array().unwrap();
    let call = input.iter().find(|i| i["type"] == "function_call").unwrap();
    assert_eq!(
        (call["call_id"].as_str(), call["name"].as_str()),
        (Some("call_1"), Some("weather"))
    );
    let output = input
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .unwrap();
    assert_eq!(output["call_id"], "call_1");
    assert_eq!(output["output"], r#"{"city":"Oslo","temp":-3}"#);
}

#[tokio::test]
async fn openai_responses_streamed_reads_the_semantic_events() {
    // The Responses API's streaming events, as its documentation shows them.
    let call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "weather", "arguments": "", "status": "in_progress"});
    let done_call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "weather", "arguments": "{\"city\":\"Oslo\"}", "status": "completed"});
    let response = |status: &str, output: Value, usage: Value| json!({"id": "resp_1", "object": "response", "created_at": 1, "status": status, "model": "gpt-test", "output": output, "usage": usage});
    let first = Answer::named_events(&[
        (
            "response.created",
            json!({"type": "response.created", "sequence_number": 0, "response": response("in_progress", json!([]), Value::Null)}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": call}),
        ),
        (
            "response.function_call_arguments.delta",
            json!({"type": "response.function_call_arguments.delta", "sequence_number": 2, "item_id": "fc_1", "output_index": 0, "delta": "{\"city\":"}),
        ),
        (
            "response.function_call_arguments.delta",
            json!({"type": "response.function_call_arguments.delta", "sequence_number": 3, "item_id": "fc_1", "output_index": 0, "delta": "\"Oslo\"}"}),
        ),
        (
            "response.function_call_arguments.done",
            json!({"type": "response.function_call_arguments.done", "sequence_number": 4, "item_id": "fc_1", "output_index": 0, "arguments": "{\"city\":\"Oslo\"}"}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "sequence_number": 5, "output_index": 0, "item": done_call}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "sequence_number": 6, "response": response("completed", json!([done_call]), json!({"input_tokens": 20, "output_tokens": 6, "total_tokens": 26}))}),
        ),
    ]);
    let message = json!({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                         "content": [{"type": "output_text", "text": "Cold in Oslo.", "annotations": []}]});
    let second = Answer::named_events(&[
        (
            "response.created",
            json!({"type": "response.created", "sequence_number": 0, "response": response("in_progress", json!([]), Value::Null)}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"type": "message", "id": "msg_1", "status": "in_progress", "role": "assistant", "content": []}}),
        ),
        (
            "response.content_part.added",
            json!({"type": "response.content_part.added", "sequence_number": 2, "item_id": "msg_1", "output_index": 0, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
        ),
        (
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "sequence_number": 3, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Cold "}),
        ),
        (
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "sequence_number": 4, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "in Oslo."}),
        ),
        (
            "response.output_text.done",
            json!({"type": "response.output_text.done", "sequence_number": 5, "item_id": "msg_1", "output_index": 0, "content_index": 0, "text": "Cold in Oslo."}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "sequence_number": 6, "output_index": 0, "item": message}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "sequence_number": 7, "response": response("completed", json!([message]), json!({"input_tokens": 40, "output_tokens": 4, "total_tokens": 44}))}),
        ),
    ]);
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::OpenAiResponses, "gpt-test")
            .with_api_key("sk-test")
            .with_base_url(format!("{url}/v1"))
            .with_streaming(true),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "Cold in Oslo.");
    assert_eq!(
        calls_run(&out),
        [r#"call_1 weather({"city":"Oslo"}) -> {"city":"Oslo","temp":-3}"#]
    );
    assert_eq!((out.usage.input_tokens, out.usage.output_tokens), (60, 10));
    assert_eq!(next(&seen).body["stream"], true);
    let r2 = next(&seen);
    let input = r2.body["input"].as_array().unwrap();
    let output = input
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .unwrap();
    assert_eq!(output["call_id"], "call_1");
}

#[test]
fn a_missing_key_or_an_unknown_provider_is_one_error_before_the_run() {
    let Err(e) = ProviderModel::new(ProviderConfig::new(Provider::Anthropic, "claude-x")) else {
        panic!("built without a key");
    };
    assert!(matches!(&e, ModelError::MissingKey { .. }));
    assert_eq!(
        e.to_string(),
        "model `anthropic:claude-x` needs an API key: set ANTHROPIC_API_KEY"
    );
    let Err(e) = from_spec("antropic:claude-x", None) else {
        panic!("an unknown provider was accepted");
    };
    assert_eq!(
        e.to_string(),
        "unknown model provider `antropic` in `antropic:claude-x`; known: anthropic, openai, \
         openai-responses, gemini, ollama, passthrough, scripted, playback"
    );
    let Err(e) = from_spec("ollama:", None) else {
        panic!("no model name was accepted");
    };
    assert_eq!(
        e.to_string(),
        "model not configured: model string `ollama:` names no model: write `ollama:<model>`"
    );
    // Ollama needs no key.
    assert_eq!(
        from_spec("ollama:qwen3:8b", None).unwrap().name(),
        "ollama:qwen3:8b"
    );
}

const CHILD_VAR: &str = "HOOKWIRE_PROVIDERS_CHILD";

/// The environment path (keys and base URLs from the provider's usual
/// variables) in child processes, since the variables are process-wide.
#[test]
fn keys_and_base_urls_come_from_the_providers_environment_variables() {
    let answer = Answer::json(json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-env",
        "content": [{"type": "text", "text": "hello from the proxy"}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 3, "output_tokens": 4}
    }));
    let (url, seen) = serve(vec![answer]);
    let child = |envs: &[(&str, &str)], remove: &[&str]| {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.args([
            "--ignored",
            "--exact",
            "providers::env_child",
            "--nocapture",
            "--test-threads=1",
        ]);
        for var in remove {
            command.env_remove(var);
        }
        command.envs(envs.iter().copied());
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "child failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    };
    let stdout = child(
        &[
            (CHILD_VAR, "key"),
            ("ANTHROPIC_API_KEY", "sk-from-env"),
            ("ANTHROPIC_BASE_URL", &url),
        ],
        &[],
    );
    assert!(stdout.contains("answer: hello from the proxy"), "{stdout}");
    let r = next(&seen);
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.headers["x-api-key"], "sk-from-env");
    let stdout = child(&[(CHILD_VAR, "no key")], &["ANTHROPIC_API_KEY"]);
    assert!(
        stdout.contains(
            "error: model `anthropic:claude-env` needs an API key: set ANTHROPIC_API_KEY"
        ),
        "{stdout}"
    );
}

#[tokio::test]
#[ignore = "run by keys_and_base_urls_come_from_the_providers_environment_variables in a child process"]
async fn env_child() {
    let Ok(mode) = std::env::var(CHILD_VAR) else {
        panic!("{CHILD_VAR} is not set: this test is run by keys_and_base_urls_come_from_...");
    };
    match from_spec("anthropic:claude-env", None) {
        Ok(model) => {
            assert_eq!(mode, "key");
            let history = [Message::user("hi")];
            let r = model
                .complete(ModelRequest::new("a", "", &history, &[]))
                .await
                .unwrap();
            println!("answer: {}", r.text);
        }
        Err(e) => println!("error: {e}"),
    }
}

/// The function-call turn of a Gemini thinking model, as the thought
/// signatures documentation shows it: two parallel calls, the signature on
/// the first.
fn gemini_signed_calls() -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}, "thoughtSignature": "c2lnLUE="},
            {"functionCall": {"name": "weather", "args": {"city": "Rome"}}}
        ]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 10, "thoughtsTokenCount": 40, "totalTokenCount": 80}
    })
}

/// Gemini's thought signatures come back on the parts they came on, in
/// the next request and in a later run resumed from the saved history.
#[tokio::test]
async fn gemini_thought_signatures_go_back_on_their_parts_and_survive_a_saved_history() {
    let answer = json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "Cold in both.", "thoughtSignature": "c2lnLUI="}
        ]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 4, "totalTokenCount": 54}
    });
    let later = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Still cold."}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 70, "candidatesTokenCount": 3, "totalTokenCount": 73}
    });
    let (url, seen) = serve(vec![
        Answer::json(gemini_signed_calls()),
        Answer::json(answer),
        Answer::json(later),
    ]);
    let model = || {
        ProviderModel::new(
            ProviderConfig::new(Provider::Gemini, "gemini-2.5-flash")
                .with_api_key("g-key")
                .with_base_url(url.clone()),
        )
        .unwrap()
    };
    let mut runner = Runner::new(test_agent("forecaster", weather_tools()), model());
    let out = runner.run("Weather in Oslo and Rome?").await.unwrap();
    assert_eq!(out.text, "Cold in both.");
    let _ = next(&seen);
    let r2 = next(&seen);
    let model_turn = &r2.body["contents"][1];
    assert_eq!(model_turn["role"], "model");
    let parts = model_turn["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{parts:#?}");
    assert_eq!(parts[0]["functionCall"]["args"], json!({"city": "Oslo"}));
    assert_eq!(parts[0]["thoughtSignature"], "c2lnLUE=");
    assert_eq!(parts[1]["functionCall"]["args"], json!({"city": "Rome"}));
    assert!(parts[1].get("thoughtSignature").is_none(), "{parts:#?}");

    // Saved and restored, the history keeps the signatures.
    let saved = serde_json::to_string(runner.history()).unwrap();
    assert!(
        saved.contains(r#""thoughts":[{"kind":"signature","signature":"c2lnLUE=","call":0}]"#),
        "{saved}"
    );
    assert!(
        saved.contains(
            r#""content":"Cold in both.","thoughts":[{"kind":"signature","signature":"c2lnLUI="}]"#
        ),
        "{saved}"
    );
    let restored: Vec<Message> = serde_json::from_str(&saved).unwrap();
    assert_eq!(restored, runner.history());
    let mut resumed =
        Runner::new(test_agent("forecaster", weather_tools()), model()).with_history(restored);
    assert_eq!(
        resumed.run("And tomorrow?").await.unwrap().text,
        "Still cold."
    );
    let r3 = next(&seen);
    let contents = r3.body["contents"].as_array().unwrap();
    let signatures: Vec<(&str, &str)> = contents
        .iter()
        .filter(|c| c["role"] == "model")
        .flat_map(|c| c["parts"].as_array().unwrap())
        .map(|p| {
            let what = if p.get("functionCall").is_some() {
                "call"
            } else {
                "text"
            };
            (what, p["thoughtSignature"].as_str().unwrap_or("-"))
        })
        .collect();
    assert_eq!(
        signatures,
        [("call", "c2lnLUE="), ("call", "-"), ("text", "c2lnLUI=")]
    );
}

/// Streamed (`streamGenerateContent?alt=sse`), a Gemini 3 model's
/// signature goes back on its call too (Gemini 3 answers 400 without it).
#[tokio::test]
async fn gemini_streamed_thought_signatures_go_back_on_their_calls() {
    let first = Answer::data_only_events(&[gemini_signed_calls()]);
    let second = Answer::data_only_events(&[
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Cold "}]}, "index": 0}]}),
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "in both."}]}, "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 4, "totalTokenCount": 54}}),
    ]);
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Gemini, "gemini-3-pro-preview")
            .with_api_key("g-key")
            .with_base_url(url)
            .with_streaming(true),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "Cold in both.");
    let r1 = next(&seen);
    assert_eq!(
        r1.path,
        "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    );
    let r2 = next(&seen);
    let parts = r2.body["contents"][1]["parts"].as_array().unwrap();
    let signatures: Vec<&str> = parts
        .iter()
        .map(|p| p["thoughtSignature"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(signatures, ["c2lnLUE=", "-"], "{parts:#?}");
    assert_eq!(parts[0]["functionCall"]["args"], json!({"city": "Oslo"}));
}

/// Anthropic's thinking blocks (signed, and redacted) go back first in the
/// assistant turn that made the tool call, as the extended-thinking
/// documentation asks; streamed, as its events show them.
#[tokio::test]
async fn anthropic_thinking_blocks_go_back_with_the_tool_use_turn() {
    let first = Answer::named_events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 100, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user wants "}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "the weather."}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9G"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_01A", "name": "weather", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Oslo\"}"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 2}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 60}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let second = Answer::named_events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_02", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 200, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Oslo is -3 degrees."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 8}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let (url, seen) = serve(vec![first, second]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Anthropic, "claude-test")
            .with_api_key("k")
            .with_base_url(url)
            .with_streaming(true),
    )
    .unwrap();
    let out = forecast(model).await;
    assert_eq!(out.text, "Oslo is -3 degrees.");
    let _ = next(&seen);
    let r2 = next(&seen);
    assert_eq!(
        r2.body["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "The user wants the weather.", "signature": "EqQBCgIYAhIM1gbcDa9G"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
            {"type": "tool_use", "id": "toolu_01A", "name": "weather", "input": {"city": "Oslo"}}
        ]})
    );
}
