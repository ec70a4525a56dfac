//! What thinking models sign goes back with their turns: Gemini's thought
//! signatures and Anthropic's thinking blocks.

use super::*;

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
