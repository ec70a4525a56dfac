//! The SSE example: a run's events over HTTP, read by a plain client on
//! 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The console (a run's events and approvals in a browser), under `sse/`
// (a module file at `tests/` would be a test binary of its own).
mod browser_support;
#[path = "sse/console.rs"]
mod console;

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `(event name, data)` of each SSE event of `body`.
fn sse_events(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut name = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = Some(n.to_owned());
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = Some(serde_json::from_str(d).unwrap());
                }
            }
            Some((name?, data?))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_streams_over_http_as_server_sent_events() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let model = Arc::new(hookwire_examples::sse::scripted_model());
    tokio::spawn(hookwire_examples::sse::serve(listener, model));

    let mut client = tokio::net::TcpStream::connect(addr).await.unwrap();
    // HTTP/1.0: the body ends when the server closes the connection.
    client
        .write_all(b"GET /run?prompt=count%20please HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut response = String::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(20),
        client.read_to_string(&mut response),
    )
    .await
    .expect("the run ends within 20 s")
    .unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.0 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{head}"
    );

    let events = sse_events(body);
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    let summary: Vec<String> = events
        .iter()
        .map(|(name, data)| match name.as_str() {
            "trace" => format!("trace {}", data["type"].as_str().unwrap()),
            "progress" => format!("progress {}", data["message"].as_str().unwrap()),
            "tool_started" => format!("tool_started {}", data["tool"].as_str().unwrap()),
            "text_delta" => format!("text_delta {:?}", data["text"].as_str().unwrap()),
            other => other.to_owned(),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "trace prompt",
            "usage",
            "trace model",
            "tool_started count",
            "progress 1",
            "progress 2",
            "progress 3",
            "trace progress",
            "trace progress",
            "trace progress",
            "trace tool_call",
            "text_delta \"I \"",
            "text_delta \"counted \"",
            "text_delta \"to \"",
            "text_delta \"3.\"",
            "usage",
            "trace model",
            "trace finished",
            "done",
        ],
        "{names:?}"
    );
    // Every event names the agent; the prompt is the one sent.
    assert!(events.iter().all(|(_, d)| d["agent"] == "counter"));
    assert_eq!(events[0].1["text"], "count please");
    let (_, done) = events.last().unwrap();
    assert_eq!(done["output"]["text"], "I counted to 3.");
    assert_eq!(done["output"]["status"]["status"], "completed");
}
