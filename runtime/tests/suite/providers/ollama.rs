//! Ollama's chat API, as one answer and as JSON lines.

use super::*;

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
