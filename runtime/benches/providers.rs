//! A native provider's answer streamed against the same answer in one body
//! (figures: BENCHMARKS.md, "Native providers"). A bench binary, not a
//! timed test: it prints the ratio taken in one run.
//!
//! ```text
//! cargo bench -p hookwire --features providers --bench providers
//! ```
//!
//! A local server on 127.0.0.1 answers Anthropic Messages requests with the
//! same turn, text in 60 pieces and one tool call, as server-sent events
//! when the request asks for a stream and as one JSON body otherwise. Each
//! round times 200 requests of each kind, alternating; the figure is the
//! median round.

#![allow(clippy::expect_used)] // a bench: a failed setup is a failed bench

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use hookwire::model::{Message, Model, ModelRequest, Provider, ProviderConfig, ProviderModel};
use serde_json::{Value, json};

const PIECES: usize = 60;

fn plain_body() -> String {
    let text: String = (0..PIECES).map(|i| format!("word{i} ")).collect();
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "bench",
        "content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}}
        ],
        "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 80}
    })
    .to_string()
}

fn stream_body() -> String {
    let mut events: Vec<(&str, Value)> = vec![
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "bench", "stop_reason": null, "usage": {"input_tokens": 100, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
    ];
    for i in 0..PIECES {
        events.push(("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": format!("word{i} ")}})));
    }
    events.extend([
        ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        ("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}})),
        ("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Oslo\"}"}})),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        ("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 80}})),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// Serves every request on its own connection until the process ends.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let (plain, stream) = (plain_body(), stream_body());
    std::thread::spawn(move || {
        for connection in listener.incoming() {
            let Ok(connection) = connection else { continue };
            let Ok(read_half) = connection.try_clone() else {
                continue;
            };
            let mut reader = BufReader::new(read_half);
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let streamed = serde_json::from_slice::<Value>(&body)
                .is_ok_and(|b| b["stream"] == Value::Bool(true));
            let (kind, answer) = if streamed {
                ("text/event-stream", &stream)
            } else {
                ("application/json", &plain)
            };
            let mut connection = connection;
            let _ = write!(
                connection,
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    url
}

fn model(url: &str, streaming: bool) -> ProviderModel {
    ProviderModel::new(
        ProviderConfig::new(Provider::Anthropic, "bench")
            .with_api_key("k")
            .with_base_url(url)
            .with_streaming(streaming),
    )
    .expect("model")
}

async fn time(model: &ProviderModel, n: usize) -> Duration {
    let history = [Message::user("Weather in Oslo?")];
    let started = Instant::now();
    for _ in 0..n {
        let answer = model
            .complete(ModelRequest::new("bench", "", &history, &[]))
            .await
            .expect("answer");
        assert_eq!(answer.tool_calls.len(), 1);
    }
    started.elapsed()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let url = serve();
        let (plain, streamed) = (model(&url, false), model(&url, true));
        // `cargo test --all-targets` runs this binary without `--bench`: a
        // smoke run of a few requests then.
        let (rounds_n, n) = if std::env::args().any(|a| a == "--bench") {
            (5, 200)
        } else {
            (1, 5)
        };
        time(&plain, 20).await;
        time(&streamed, 20).await;
        let mut rounds = Vec::new();
        for _ in 0..rounds_n {
            let p = time(&plain, n).await;
            let s = time(&streamed, n).await;
            rounds.push((s.as_secs_f64() / p.as_secs_f64(), p, s));
        }
        rounds.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (ratio, p, s) = rounds[rounds.len() / 2];
        println!(
            "providers/anthropic: plain {:.0} us/request, streamed {:.0} us/request: streamed/plain {ratio:.2}x (median of {rounds_n} rounds of {n})",
            p.as_secs_f64() * 1e6 / n as f64,
            s.as_secs_f64() * 1e6 / n as f64,
        );
    });
}
