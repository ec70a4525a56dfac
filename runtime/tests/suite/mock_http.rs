//! A local HTTP/1.1 server for the model tests: serves one canned answer
//! per connection, in order (JSON, server-sent events, NDJSON, or an error
//! status with headers), and reports each request it read. Shared with the
//! examples' tests by `#[path]`.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

use serde_json::Value;

/// One canned answer.
#[derive(Debug, Clone)]
pub struct Answer {
    status: u16,
    content_type: &'static str,
    headers: Vec<(String, String)>,
    body: String,
    /// Where the connection is cut: the bytes of the body sent before it
    /// closes (the head announces the whole body).
    cut: Option<usize>,
}

impl Answer {
    /// A 200 with a JSON body.
    pub fn json(body: Value) -> Self {
        Self {
            status: 200,
            content_type: "application/json",
            headers: Vec::new(),
            body: body.to_string(),
            cut: None,
        }
    }

    /// A 200 event stream of named events (`event: <name>` then
    /// `data: <json>`), as Anthropic sends them.
    pub fn named_events(events: &[(&str, Value)]) -> Self {
        let body = events
            .iter()
            .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
            .collect();
        Self::stream(body)
    }

    /// A 200 event stream of `data:` lines, each JSON, then `data: [DONE]`,
    /// as OpenAI chat completions send them.
    pub fn data_events(events: &[Value]) -> Self {
        let mut body: String = events.iter().map(|d| format!("data: {d}\n\n")).collect();
        body.push_str("data: [DONE]\n\n");
        Self::stream(body)
    }

    /// A 200 event stream of `data:` lines, each JSON, as Gemini sends
    /// them (no `[DONE]`).
    pub fn data_only_events(events: &[Value]) -> Self {
        Self::stream(events.iter().map(|d| format!("data: {d}\n\n")).collect())
    }

    /// A 200 stream of JSON lines, as Ollama sends them.
    pub fn ndjson(lines: &[Value]) -> Self {
        Self {
            status: 200,
            content_type: "application/x-ndjson",
            headers: Vec::new(),
            body: lines.iter().map(|l| format!("{l}\n")).collect(),
            cut: None,
        }
    }

    /// A 200 event stream whose body is `body` as it is.
    pub fn event_stream(body: String) -> Self {
        Self::stream(body)
    }

    fn stream(body: String) -> Self {
        Self {
            status: 200,
            content_type: "text/event-stream",
            headers: Vec::new(),
            body,
            cut: None,
        }
    }

    /// A 200 whose body is `body` as it is (JSON or not).
    pub fn raw(body: &str) -> Self {
        Self {
            status: 200,
            content_type: "application/json",
            headers: Vec::new(),
            body: body.to_owned(),
            cut: None,
        }
    }

    /// An error status with a JSON body.
    pub fn status(status: u16, body: Value) -> Self {
        Self {
            status,
            content_type: "application/json",
            headers: Vec::new(),
            body: body.to_string(),
            cut: None,
        }
    }

    /// The same answer with its connection cut after the first `events`
    /// events of its body (server-sent events end with a blank line, JSON
    /// lines with a newline): the head announces the whole body, which
    /// never comes, as when a connection drops midway.
    pub fn cut_after(mut self, events: usize) -> Self {
        let end = if self.content_type == "text/event-stream" {
            "\n\n"
        } else {
            "\n"
        };
        let mut at = 0;
        for _ in 0..events {
            at += self.body[at..].find(end).unwrap() + end.len();
        }
        self.cut = Some(at);
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

/// One request as the server read it.
#[derive(Debug)]
pub struct Seen {
    /// The method.
    pub method: String,
    /// The path with its query.
    pub path: String,
    /// The headers, names in lower case.
    pub headers: HashMap<String, String>,
    /// The JSON body.
    pub body: Value,
}

/// Serves `answers`, one per connection, on 127.0.0.1; returns
/// `http://127.0.0.1:<port>` and the requests it reads.
pub fn serve(answers: Vec<Answer>) -> (String, mpsc::Receiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for answer in answers {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut parts = request_line.split_whitespace();
            let method = parts.next().unwrap_or_default().to_owned();
            let path = parts.next().unwrap_or_default().to_owned();
            let mut headers = HashMap::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                let (name, value) = line.split_once(':').unwrap();
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
            }
            let length = headers
                .get("content-length")
                .map_or(0, |l| l.parse().unwrap());
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let _ = tx.send(Seen {
                method,
                path,
                headers,
                body,
            });
            let mut stream = stream;
            let mut head = format!(
                "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                answer.status,
                if answer.status == 200 { "OK" } else { "Error" },
                answer.content_type,
                answer.body.len()
            );
            for (name, value) in &answer.headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let body = &answer.body.as_bytes()[..answer.cut.unwrap_or(answer.body.len())];
            let _ = stream.write_all(body);
            let _ = stream.flush();
            if answer.cut.is_some() {
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
        }
    });
    (url, rx)
}
