//! Anthropic's Messages API, streamed and not, and a streamed run's
//! requests.

use super::*;

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
