//! Secrets never leave: a provider whose error body echoes the request's
//! headers (the key in `Authorization` for OpenAI, in `x-api-key` for
//! Anthropic) puts the key nowhere: not in the run's error (Display and
//! Debug), not in its trace (the retry event), not in any `tracing` event
//! or span field. And the configurations' `Debug` never shows a key.

#![cfg(feature = "openai")]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use hookwire::Router;
use hookwire::agent::{EventKind, Runner};
use hookwire::hooks::RetryPolicy;
use hookwire::model::{Model, OpenAiConfig, OpenAiModel};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};

use crate::agent_common::test_agent;

/// Everything `tracing` saw: each event's and span's fields, as text.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl Seen {
    fn push(&self, what: &str, record: impl FnOnce(&mut Fields<'_>)) {
        let mut fields = BTreeMap::new();
        record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push(format!("{what} {fields:?}"));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Seen {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        self.push(event.metadata().target(), |f| event.record(f));
    }

    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: Context<'_, S>,
    ) {
        self.push(attrs.metadata().name(), |f| attrs.record(f));
    }

    fn on_record(
        &self,
        _: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        _: Context<'_, S>,
    ) {
        self.push("record", |f| values.record(f));
    }
}

/// A provider that answers each request with `statuses`' next status and
/// a body echoing the request's headers, as text and as JSON.
fn echoing_server(statuses: Vec<u16>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for status in statuses {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut raw = String::new();
            let mut headers = serde_json::Map::new();
            let mut length = 0;
            reader.read_line(&mut raw).unwrap();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim_end().is_empty() {
                    break;
                }
                let (name, value) = line.split_once(':').unwrap();
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap();
                }
                headers.insert(name.trim().to_owned(), value.trim().into());
                raw.push_str(&line);
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body = format!(
                "{}\n{raw}",
                serde_json::json!({"error": {"message": "rejected", "request_headers": headers}})
            );
            let mut stream = stream;
            let head = format!(
                "HTTP/1.1 {status} Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
    });
    url
}

/// Runs one streamed run on `model` (a 500, retried once, then a 400),
/// everything `tracing` saw captured; asserts `key` appears nowhere and
/// the echo did reach the error (redacted).
async fn the_key_appears_nowhere(model: impl Model + 'static, key: &str) {
    let seen = Seen::default();
    let subscriber = tracing_subscriber::registry()
        .with(seen.clone())
        .with(tracing_subscriber::filter::LevelFilter::TRACE);
    let _guard = tracing::subscriber::set_default(subscriber);
    let mut runner = Runner::new(test_agent("a", Router::new()), model).with_model_retry(
        RetryPolicy::default()
            .with_max_retries(1)
            .with_delays(Duration::from_millis(1), Duration::from_millis(5)),
    );
    let events: Vec<_> = runner.stream("go").collect().await;
    let Some(EventKind::Done(Err(error))) = events.last().map(|e| &e.kind) else {
        panic!("{events:#?}");
    };
    let shown = format!("{error}\n{error:?}");
    assert!(shown.contains("HTTP 400"), "{shown}");
    assert!(shown.contains("[redacted]"), "{shown}");
    assert!(!shown.contains(key), "the key in the error: {shown}");
    let trace: Vec<String> = events
        .iter()
        .filter_map(|e| e.trace())
        .map(|t| format!("{t} {t:?}"))
        .collect();
    let retry = trace.iter().find(|t| t.contains("model retry 1"));
    assert!(retry.is_some_and(|t| t.contains("HTTP 500")), "{trace:#?}");
    for t in &trace {
        assert!(!t.contains(key), "the key in the trace: {t}");
    }
    let logged = seen.0.lock().unwrap().clone();
    assert!(
        logged
            .iter()
            .any(|l| l.starts_with("hookwire::audit") && l.contains("HTTP 400")),
        "the failure is not logged: {logged:#?}"
    );
    for l in &logged {
        assert!(!l.contains(key), "the key in a log: {l}");
    }
}

#[tokio::test]
async fn an_openai_error_echoing_the_authorization_header_keeps_the_key_out() {
    let key = "sk-proj-Very5ecretOpenAiKey";
    let url = echoing_server(vec![500, 400]);
    let model = OpenAiModel::new(
        OpenAiConfig::new("m")
            .with_base_url(format!("{url}/v1"))
            .with_api_key(key),
    )
    .unwrap();
    the_key_appears_nowhere(model, key).await;
}

#[cfg(feature = "providers")]
#[tokio::test]
async fn an_anthropic_error_echoing_x_api_key_keeps_the_key_out() {
    use hookwire::model::{Provider, ProviderConfig, ProviderModel};
    let key = "sk-ant-api03-Very5ecretAnthropicKey";
    for streaming in [false, true] {
        let url = echoing_server(vec![500, 400]);
        let model = ProviderModel::new(
            ProviderConfig::new(Provider::Anthropic, "claude")
                .with_api_key(key)
                .with_base_url(url)
                .with_streaming(streaming),
        )
        .unwrap();
        the_key_appears_nowhere(model, key).await;
    }
}

#[test]
fn no_configuration_shows_a_key_or_token_in_debug() {
    let key = "sk-Very5ecretKey";
    let config = OpenAiConfig::new("m").with_api_key(key);
    let model = OpenAiModel::new(config.clone()).unwrap();
    let mut shown = vec![format!("{config:?}"), format!("{model:?}")];
    #[cfg(feature = "providers")]
    {
        use hookwire::model::{Provider, ProviderConfig, ProviderModel};
        let config = ProviderConfig::new(Provider::Anthropic, "c").with_api_key(key);
        let model = ProviderModel::new(config.clone()).unwrap();
        shown.push(format!("{config:?}"));
        shown.push(format!("{model:?}"));
    }
    #[cfg(feature = "mcp")]
    {
        use hookwire::mcp::{McpConfig, ServerSpec};
        let http = ServerSpec::http("http://127.0.0.1:1/mcp")
            .bearer_token(key)
            .header("X-Other", format!("{key}-2"));
        let stdio = ServerSpec::stdio("server").env("GITHUB_TOKEN", key);
        let config = McpConfig::new()
            .with_server("web", http.clone())
            .unwrap()
            .with_server("local", stdio.clone())
            .unwrap();
        let from_file = McpConfig::from_yaml(&format!(
            "servers:\n  a:\n    url: http://h/mcp\n    bearer_token: {key}\n  b:\n    command: x\n    env: {{T: {key}}}\n  c:\n    url: http://h/mcp\n    headers: {{X-Api-Key: {key}}}\n"
        ))
        .unwrap();
        for s in [
            format!("{http:?}"),
            format!("{stdio:?}"),
            format!("{:?}", http.transport),
            format!("{config:?}"),
            format!("{config:#?}"),
            format!("{from_file:?}"),
        ] {
            shown.push(s);
        }
    }
    for s in &shown {
        assert!(!s.contains(key), "{s}");
        assert!(!s.contains("5ecret"), "{s}");
    }
    // The configurations are still what they were given.
    assert_eq!(config.api_key.as_ref().map(|k| k.expose()), Some(key));
}
