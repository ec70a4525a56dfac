//! Model calls retry: transport errors, 429 and 5xx, honouring
//! `Retry-After`, each retry in the trace; other errors fail at once.
#![cfg(feature = "openai")]

use crate::agent_common::test_agent;
use crate::mock_http::{Answer, serve};

use std::time::Duration;

use hookwire::Router;
use hookwire::agent::{RunError, RunStatus, Runner, TraceEvent};
use hookwire::hooks::RetryPolicy;
use hookwire::model::{
    Message, ModelError, ModelRequest, OpenAiConfig, OpenAiModel, RetryNote, complete_with_retry,
};
use serde_json::json;

fn completion(text: &str) -> Answer {
    Answer::json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    }))
}

fn rate_limited(retry_after: &str) -> Answer {
    Answer::status(
        429,
        json!({"error": {"message": "Rate limit reached", "type": "requests"}}),
    )
    .header("Retry-After", retry_after)
}

/// Tiny delays: at most 20 ms (a `Retry-After` over it is an error).
fn quick() -> RetryPolicy {
    RetryPolicy::default().with_delays(Duration::from_millis(1), Duration::from_millis(20))
}

fn retries(trace: &[TraceEvent]) -> Vec<String> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ModelRetry {
                step,
                attempt,
                delay_ms,
                reason,
            } => Some(format!(
                "step {step} retry {attempt} after {delay_ms} ms: {reason}"
            )),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn two_429s_then_an_answer_retry_after_the_asked_wait_and_the_trace_shows_them() {
    let (url, seen) = serve(vec![
        rate_limited("0"),
        rate_limited("0.02"),
        completion("done"),
    ]);
    let model =
        OpenAiModel::new(OpenAiConfig::new("m").with_base_url(format!("{url}/v1"))).unwrap();
    let mut runner = Runner::new(test_agent("a", Router::new()), model).with_model_retry(quick());
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.text, "done");
    let reason = r#"model request failed: HTTP 429: {"error":{"message":"Rate limit reached","type":"requests"}}"#;
    assert_eq!(
        retries(&out.trace),
        [
            format!("step 0 retry 1 after 0 ms: {reason}"),
            format!("step 0 retry 2 after 20 ms: {reason}"),
        ]
    );
    // The retries come before the step's answer.
    let kinds: Vec<&str> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ModelRetry { .. } => Some("retry"),
            TraceEvent::Model { .. } => Some("model"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["retry", "retry", "model"]);
    for _ in 0..3 {
        assert_eq!(
            seen.recv_timeout(Duration::from_secs(5)).unwrap().path,
            "/v1/chat/completions"
        );
    }
}

#[tokio::test]
async fn a_400_is_not_retried() {
    let (url, seen) = serve(vec![
        Answer::status(400, json!({"error": {"message": "bad tool schema"}})),
        completion("never"),
    ]);
    let model =
        OpenAiModel::new(OpenAiConfig::new("m").with_base_url(format!("{url}/v1"))).unwrap();
    let mut runner = Runner::new(test_agent("a", Router::new()), model).with_model_retry(quick());
    let error = runner.run("go").await.unwrap_err();
    assert!(
        matches!(&error, RunError::Model(ModelError::Http { status: 400, body, .. }) if body.contains("bad tool schema")),
        "{error}"
    );
    assert!(seen.recv_timeout(Duration::from_secs(5)).is_ok());
    assert!(
        seen.recv_timeout(Duration::from_millis(200)).is_err(),
        "a second request was made"
    );
}

#[tokio::test]
async fn retries_stop_at_the_limit() {
    let unavailable = || Answer::status(503, json!({"error": "overloaded"}));
    let (url, seen) = serve(vec![unavailable(), unavailable(), unavailable()]);
    let model =
        OpenAiModel::new(OpenAiConfig::new("m").with_base_url(format!("{url}/v1"))).unwrap();
    let mut runner = Runner::new(test_agent("a", Router::new()), model)
        .with_model_retry(quick().with_max_retries(1));
    let error = runner.run("go").await.unwrap_err();
    assert!(
        matches!(
            &error,
            RunError::Model(ModelError::Http { status: 503, .. })
        ),
        "{error}"
    );
    assert!(seen.recv_timeout(Duration::from_secs(5)).is_ok());
    assert!(seen.recv_timeout(Duration::from_secs(5)).is_ok());
    assert!(
        seen.recv_timeout(Duration::from_millis(200)).is_err(),
        "more than one retry"
    );
}

#[tokio::test]
async fn a_refused_connection_is_a_transport_error_and_retried() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let model = OpenAiModel::new(
        OpenAiConfig::new("m").with_base_url(format!("http://127.0.0.1:{port}/v1")),
    )
    .unwrap();
    let history = [Message::user("hi")];
    let mut notes: Vec<RetryNote> = Vec::new();
    let error = complete_with_retry(
        &model,
        ModelRequest::new("a", "", &history, &[]),
        &quick().with_max_retries(2).with_jitter(false),
        &mut |note| notes.push(note),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, ModelError::Transport(_)), "{error}");
    let seen: Vec<(u32, u64)> = notes.iter().map(|n| (n.attempt, n.delay_ms)).collect();
    assert_eq!(seen, [(1, 1), (2, 2)]);
}

#[cfg(feature = "providers")]
#[tokio::test]
async fn a_streamed_provider_call_retries_a_429_too() {
    use hookwire::model::{Provider, ProviderConfig, ProviderModel};
    let answer = Answer::named_events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "c", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 3, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 2}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let overloaded = Answer::status(
        529,
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    )
    .header("retry-after-ms", "3");
    let (url, _seen) = serve(vec![rate_limited("0"), overloaded, answer]);
    let model = ProviderModel::new(
        ProviderConfig::new(Provider::Anthropic, "c")
            .with_api_key("k")
            .with_base_url(url)
            .with_streaming(true),
    )
    .unwrap();
    let mut runner = Runner::new(test_agent("a", Router::new()), model).with_model_retry(quick());
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "ok");
    let found = retries(&out.trace);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].starts_with("step 0 retry 1 after 0 ms: model request failed: HTTP 429: "),
        "{found:#?}"
    );
    assert!(
        found[1].starts_with("step 0 retry 2 after 3 ms: model request failed: HTTP 529: "),
        "{found:#?}"
    );
    assert!(found[1].contains("Overloaded"), "{found:#?}");
}

#[tokio::test]
async fn retry_after_as_an_http_date_is_read_against_the_clock() {
    let date = |from_now: i64| {
        let now = std::time::SystemTime::now();
        let at = if from_now < 0 {
            now - Duration::from_secs(from_now.unsigned_abs())
        } else {
            now + Duration::from_secs(from_now.unsigned_abs())
        };
        httpdate::fmt_http_date(at)
    };
    let (url, _seen) = serve(vec![
        // In the past: at once.
        rate_limited(&date(-3600)),
        // Not a wait: the backoff (1 ms doubled).
        rate_limited("soon"),
        completion("done"),
    ]);
    let model =
        OpenAiModel::new(OpenAiConfig::new("m").with_base_url(format!("{url}/v1"))).unwrap();
    let mut runner = Runner::new(test_agent("a", Router::new()), model)
        .with_model_retry(quick().with_jitter(false));
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "done");
    let delays: Vec<String> = retries(&out.trace)
        .iter()
        .map(|r| r.split(':').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        delays,
        ["step 0 retry 1 after 0 ms", "step 0 retry 2 after 2 ms"]
    );
    // An hour ahead, over the cap: not asked again sooner, an error that
    // says what the service asked for and what the cap is.
    let (url, seen) = serve(vec![rate_limited(&date(3600)), completion("never")]);
    let model =
        OpenAiModel::new(OpenAiConfig::new("m").with_base_url(format!("{url}/v1"))).unwrap();
    let mut runner =
        Runner::new(test_agent("a", Router::new()), model).with_model_retry(RetryPolicy::default());
    let error = runner.run("go").await.unwrap_err();
    let RunError::Model(ModelError::RetryAfterOverCap {
        asked_ms,
        cap_ms,
        error: asked_by,
    }) = &error
    else {
        panic!("{error:?}");
    };
    assert!((3_590_000..=3_600_000).contains(asked_ms), "{asked_ms}");
    assert_eq!(*cap_ms, 30_000);
    assert!(
        matches!(**asked_by, ModelError::Http { status: 429, .. }),
        "{asked_by}"
    );
    let text = error.to_string();
    assert!(text.contains(", over the retry cap of 30 s"), "{text}");
    assert!(seen.recv_timeout(Duration::from_secs(5)).is_ok());
    assert!(
        seen.recv_timeout(Duration::from_millis(200)).is_err(),
        "asked again before the wait the service asked for"
    );
}

#[tokio::test]
async fn a_retry_after_over_the_cap_is_an_error_not_a_shorter_wait() {
    let (url, _seen) = serve(vec![rate_limited("120"), completion("never")]);
    let model =
        OpenAiModel::new(OpenAiConfig::new("m").with_base_url(format!("{url}/v1"))).unwrap();
    let history = [Message::user("hi")];
    let mut notes: Vec<RetryNote> = Vec::new();
    let error = complete_with_retry(
        &model,
        ModelRequest::new("a", "", &history, &[]),
        &RetryPolicy::default(),
        &mut |note| notes.push(note),
    )
    .await
    .unwrap_err();
    assert!(notes.is_empty(), "{notes:?}");
    assert!(
        matches!(
            error,
            ModelError::RetryAfterOverCap {
                asked_ms: 120_000,
                cap_ms: 30_000,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        error.to_string().starts_with(
            "the model service asked to wait 120 s before asking again, over the retry cap of 30 s"
        ),
        "{error}"
    );
}
