//! OpenAI's Chat Completions and Responses APIs, streamed and not.

use super::*;

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
