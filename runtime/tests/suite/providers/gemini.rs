//! Gemini's `generateContent` and `streamGenerateContent`.

use super::*;

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
