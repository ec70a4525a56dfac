//! A streamed answer cut midway and asked again never shows its text
//! twice: the stream sends `Retry` when the retry starts, before the new
//! attempt's text, and the text after the step's last `Retry` is the
//! answer. Each streaming path against a local server that cuts the
//! connection after two text deltas of the first request and answers the
//! second in full.
#![cfg(feature = "openai")]

use super::*;
use crate::mock_http::{Answer, serve};
use hookwire::hooks::RetryPolicy;
use serde_json::Value;

/// What a consumer of the stream reads of the model's text: the deltas,
/// the resets, the trace's retry and answer.
fn text_events(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TextDelta { step, text } => Some(format!("{step}: delta {text}")),
            EventKind::Retry { step, attempt } => Some(format!("{step}: retry {attempt}")),
            EventKind::Trace(TraceEvent::ModelRetry { step, attempt, .. }) => {
                Some(format!("{step}: trace retry {attempt}"))
            }
            EventKind::Trace(TraceEvent::Model { step, text, .. }) => {
                Some(format!("{step}: trace model {text}"))
            }
            _ => None,
        })
        .collect()
}

/// The text a consumer shows: the deltas after the last reset.
fn shown(events: &[RunEvent]) -> String {
    let start = events
        .iter()
        .rposition(|e| matches!(e.kind, EventKind::Retry { .. }))
        .map_or(0, |at| at + 1);
    crate::agent_common::text_deltas(&events[start..]).concat()
}

/// Streams a run on `model`, whose server cut the first answer after two
/// deltas: the consumer sees the partial text, the reset when the retry
/// starts, then only the answer.
async fn cut_then_whole(model: impl Model + 'static) {
    let mut runner = Runner::new(test_agent("r", Router::new()), model)
        .with_model_retry(RetryPolicy::default().with_delays(Duration::ZERO, Duration::ZERO));
    let events: Vec<RunEvent> = runner.stream("hi").collect().await;
    let Some(EventKind::Done(Ok(out))) = events.last().map(|e| &e.kind) else {
        panic!("{:#?}", kinds(&events))
    };
    assert_eq!(
        text_events(&events),
        [
            "0: delta PARTIAL-ONE ",
            "0: delta PARTIAL-TWO ",
            "0: retry 1",
            "0: trace retry 1",
            "0: delta COMPLETE.",
            "0: trace model COMPLETE.",
        ]
    );
    assert_eq!(out.text, "COMPLETE.");
    assert_eq!(shown(&events), out.text);
    // The trace, as the stream sent it, keeps the retry once.
    let traced: Vec<&TraceEvent> = events.iter().filter_map(|e| e.trace()).collect();
    assert_eq!(traced, out.trace.iter().collect::<Vec<_>>());
}

/// OpenAI chat-completions chunks of `texts`, then the finish and usage.
fn chat_chunks(texts: &[&str]) -> Answer {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut chunks: Vec<Value> = texts
        .iter()
        .map(|t| chunk(json!({"role": "assistant", "content": t}), Value::Null))
        .collect();
    chunks.push(chunk(json!({}), json!("stop")));
    chunks.push(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}),
    );
    Answer::data_events(&chunks)
}

#[tokio::test]
async fn openai_chat_completions_cut_midway_is_reset_then_answered() {
    let (url, _seen) = serve(vec![
        chat_chunks(&["PARTIAL-ONE ", "PARTIAL-TWO ", "PARTIAL-THREE"]).cut_after(2),
        chat_chunks(&["COMPLETE."]),
    ]);
    let model = hookwire::model::OpenAiModel::new(
        hookwire::model::OpenAiConfig::new("m").with_base_url(format!("{url}/v1")),
    )
    .unwrap();
    cut_then_whole(model).await;
}

#[cfg(feature = "providers")]
mod providers {
    use super::*;
    use hookwire::model::{Provider, ProviderConfig, ProviderModel};

    fn model(provider: Provider, url: &str) -> ProviderModel {
        ProviderModel::new(
            ProviderConfig::new(provider, "m")
                .with_api_key("k")
                .with_base_url(format!("{url}/v1"))
                .with_streaming(true),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn openai_through_genai_cut_midway_is_reset_then_answered() {
        let (url, _seen) = serve(vec![
            chat_chunks(&["PARTIAL-ONE ", "PARTIAL-TWO ", "PARTIAL-THREE"]).cut_after(2),
            chat_chunks(&["COMPLETE."]),
        ]);
        cut_then_whole(model(Provider::OpenAi, &url)).await;
    }

    /// Anthropic's named events: the text deltas of one text block.
    fn anthropic_events(texts: &[&str]) -> Answer {
        let mut events = vec![
            (
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ),
        ];
        for text in texts {
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            ));
        }
        events.extend([
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
        Answer::named_events(&events)
    }

    #[tokio::test]
    async fn anthropic_cut_midway_is_reset_then_answered() {
        let (url, _seen) = serve(vec![
            // The two deltas come after the message's and the block's start.
            anthropic_events(&["PARTIAL-ONE ", "PARTIAL-TWO ", "PARTIAL-THREE"]).cut_after(4),
            anthropic_events(&["COMPLETE."]),
        ]);
        cut_then_whole(model(Provider::Anthropic, &url)).await;
    }
}

/// A stream that ends cleanly before its end (the server closed it where
/// an event ended) is cut short too: asked again, and reset.
#[cfg(feature = "providers")]
#[tokio::test]
async fn a_stream_that_ends_before_its_end_event_is_asked_again() {
    use hookwire::model::{Provider, ProviderConfig, ProviderModel};
    let chunk = |text: &str| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": null}]})
    };
    // Two deltas and the end of the body: no finish, no `[DONE]`.
    let partial: String = ["PARTIAL-ONE ", "PARTIAL-TWO "]
        .iter()
        .map(|t| format!("data: {}\n\n", chunk(t)))
        .collect();
    let (url, _seen) = serve(vec![
        Answer::event_stream(partial.clone()),
        chat_chunks(&["COMPLETE."]),
        Answer::event_stream(partial),
        chat_chunks(&["COMPLETE."]),
    ]);
    let chat = hookwire::model::OpenAiModel::new(
        hookwire::model::OpenAiConfig::new("m").with_base_url(format!("{url}/v1")),
    )
    .unwrap();
    cut_then_whole(chat).await;
    let genai = ProviderModel::new(
        ProviderConfig::new(Provider::OpenAi, "m")
            .with_api_key("k")
            .with_base_url(format!("{url}/v1"))
            .with_streaming(true),
    )
    .unwrap();
    cut_then_whole(genai).await;
}
