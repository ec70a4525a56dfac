//! OpenTelemetry (feature `otel`): a run exported through
//! `hookwire::otel::layer` to the SDK's in-memory exporter has the GenAI
//! conventions' spans, nesting and attributes; contents only when the
//! session asks for them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;
use crate::agent_tracing::{Add, Guard};

use std::sync::Arc;

use agent_common::test_agent;
use hookwire::agent::{AgentTool, Runner};
use hookwire::model::{Script, ScriptedModel, Turn, Usage};
use hookwire::otel::opentelemetry::trace::{SpanId, SpanKind, Status};
use hookwire::otel::opentelemetry::{Key, Value};
use hookwire::otel::opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use hookwire::otel::{self, CaptureContent};
use hookwire::{FnTool, Json, Router};
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt;

fn usage(input_tokens: u64, output_tokens: u64) -> Usage {
    Usage {
        input_tokens,
        output_tokens,
    }
}

fn model(name: &str, turns: impl IntoIterator<Item = Turn>) -> ScriptedModel {
    ScriptedModel::new(Script {
        name: Some(name.to_owned()),
        turns: turns.into_iter().collect(),
        ..Script::default()
    })
}

/// Runs `boss` (an `inc` tool, a `Worker` child agent and a hook that
/// denies `inc` of 13) on a scripted model, under the OpenTelemetry layer;
/// the spans the exporter received, and the run's answer.
async fn run(capture: bool) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry().with(otel::layer(&provider));
    let _guard = tracing::subscriber::set_default(subscriber);

    let mut worker_turn = Turn::text("the worker's answer");
    worker_turn.usage = usage(3, 2);
    let worker = AgentTool::new(
        test_agent("Worker", Router::new()),
        Arc::new(model("anthropic:claude-sonnet-4-5", [worker_turn])),
    );
    let tools = Router::new()
        .tool(FnTool::new("inc", "Adds one.", |x: Add| async move {
            Json(x.a + 1)
        }))
        .tool(worker);
    let mut calls = Turn::call("inc", json!({"a": 1}))
        .and_call("inc", json!({"a": 13}))
        .and_call("agent__Worker", json!({"message": "secret question"}));
    calls.usage = usage(10, 5);
    let mut answer = Turn::text("done");
    answer.usage = usage(20, 7);
    let mut runner = Runner::new(
        test_agent("boss", tools).with_hooks(Guard),
        model("openai:gpt-4o-mini", [calls, answer]),
    )
    .with_correlation_id("corr-7");
    if capture {
        runner = runner.with_session_value(CaptureContent);
    }
    let out = runner.run("a secret prompt").await.unwrap();
    assert_eq!(out.text, "done");
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

fn attr<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key == Key::from(key.to_owned()))
        .map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> String {
    match attr(span, key) {
        Some(Value::String(s)) => s.as_str().to_owned(),
        other => panic!("`{}` has no text `{key}`: {other:?}", span.name),
    }
}

fn int(span: &SpanData, key: &str) -> i64 {
    match attr(span, key) {
        Some(Value::I64(n)) => *n,
        other => panic!("`{}` has no integer `{key}`: {other:?}", span.name),
    }
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn one<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    let found = named(spans, name);
    assert_eq!(found.len(), 1, "one `{name}` span: {:?}", names(spans));
    found[0]
}

fn names(spans: &[SpanData]) -> Vec<String> {
    spans.iter().map(|s| s.name.to_string()).collect()
}

/// The span `span` is a child of.
fn parent<'a>(spans: &'a [SpanData], span: &SpanData) -> Option<&'a SpanData> {
    spans
        .iter()
        .find(|s| s.span_context.span_id() == span.parent_span_id)
}

/// The keys holding contents, which the conventions make opt-in.
const CONTENT: [&str; 5] = [
    "gen_ai.system_instructions",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
];

#[tokio::test]
async fn a_run_is_exported_as_genai_spans_nested_agent_step_chat_and_tool() {
    let spans = run(false).await;

    // The run: `invoke_agent boss`, the root, with the tokens of its two
    // model calls and its child's.
    let boss = one(&spans, "invoke_agent boss");
    assert_eq!(boss.parent_span_id, SpanId::INVALID);
    assert_eq!(boss.span_kind, SpanKind::Internal);
    assert_eq!(text(boss, "gen_ai.operation.name"), "invoke_agent");
    assert_eq!(text(boss, "gen_ai.agent.name"), "boss");
    assert_eq!(text(boss, "gen_ai.provider.name"), "openai");
    assert_eq!(text(boss, "gen_ai.request.model"), "gpt-4o-mini");
    assert_eq!(text(boss, "gen_ai.conversation.id"), "corr-7");
    assert_eq!(int(boss, "gen_ai.usage.input_tokens"), 10 + 20 + 3);
    assert_eq!(int(boss, "gen_ai.usage.output_tokens"), 5 + 7 + 2);
    assert_eq!(boss.status, Status::Unset);
    assert_eq!(boss.instrumentation_scope.name(), "hookwire");
    assert_eq!(
        boss.instrumentation_scope.schema_url(),
        Some(otel::SCHEMA_URL)
    );

    // Two steps under it, each with its model call: `chat gpt-4o-mini`,
    // a client span with that call's tokens.
    let steps: Vec<_> = named(&spans, "hookwire.step")
        .into_iter()
        .filter(|s| s.parent_span_id == boss.span_context.span_id())
        .collect();
    assert_eq!(steps.len(), 2);
    let chats = named(&spans, "chat gpt-4o-mini");
    assert_eq!(chats.len(), 2);
    let mut tokens = Vec::new();
    for chat in &chats {
        assert_eq!(chat.span_kind, SpanKind::Client);
        let step = parent(&spans, chat).unwrap();
        assert!(steps.contains(&step), "{}", step.name);
        assert_eq!(text(chat, "gen_ai.operation.name"), "chat");
        assert_eq!(text(chat, "gen_ai.provider.name"), "openai");
        assert_eq!(text(chat, "gen_ai.request.model"), "gpt-4o-mini");
        tokens.push((
            int(chat, "gen_ai.usage.input_tokens"),
            int(chat, "gen_ai.usage.output_tokens"),
        ));
    }
    tokens.sort();
    assert_eq!(tokens, [(10, 5), (20, 7)]);

    // The tool calls of the first step: `execute_tool {tool}` with the
    // model's call ids; the denied one an error, with the hook's decision.
    let incs = named(&spans, "execute_tool inc");
    assert_eq!(incs.len(), 2);
    let step0 = parent(&spans, incs[0]).unwrap();
    assert_eq!(step0.name, "hookwire.step");
    for call in &incs {
        assert_eq!(call.parent_span_id, step0.span_context.span_id());
        assert_eq!(call.span_kind, SpanKind::Internal);
        assert_eq!(text(call, "gen_ai.operation.name"), "execute_tool");
        assert_eq!(text(call, "gen_ai.tool.name"), "inc");
        assert_eq!(text(call, "gen_ai.tool.type"), "function");
    }
    let id = |s: &&SpanData| text(s, "gen_ai.tool.call.id");
    let allowed = incs.iter().find(|s| id(s) == "call_0_0").unwrap();
    let denied = incs.iter().find(|s| id(s) == "call_0_1").unwrap();
    assert_eq!(text(allowed, "hookwire.decision"), "allowed");
    assert_eq!(attr(allowed, "error.type"), None);
    assert_eq!(attr(allowed, "hookwire.hook"), None);
    assert_eq!(allowed.status, Status::Unset);
    assert_eq!(text(denied, "hookwire.decision"), "denied");
    assert_eq!(text(denied, "hookwire.hook"), "guard");
    assert_eq!(text(denied, "error.type"), "denied");
    assert_eq!(denied.status, Status::error(""));

    // The child agent: `invoke_agent Worker` under its parent's tool span,
    // with its own model call on its own model.
    let call = one(&spans, "execute_tool agent__Worker");
    assert_eq!(text(call, "gen_ai.tool.call.id"), "call_0_2");
    assert_eq!(call.parent_span_id, step0.span_context.span_id());
    let worker = one(&spans, "invoke_agent Worker");
    assert_eq!(worker.parent_span_id, call.span_context.span_id());
    assert_eq!(text(worker, "gen_ai.agent.name"), "Worker");
    assert_eq!(text(worker, "gen_ai.provider.name"), "anthropic");
    assert_eq!(text(worker, "gen_ai.conversation.id"), "corr-7");
    let worker_chat = one(&spans, "chat claude-sonnet-4-5");
    assert_eq!(
        parent(&spans, parent(&spans, worker_chat).unwrap())
            .unwrap()
            .name,
        "invoke_agent Worker"
    );
    assert_eq!(text(worker_chat, "gen_ai.provider.name"), "anthropic");
    assert_eq!(int(worker_chat, "gen_ai.usage.input_tokens"), 3);
    assert_eq!(int(worker_chat, "gen_ai.usage.output_tokens"), 2);

    // No contents by default: no content attribute, and the prompt and
    // arguments appear nowhere.
    for span in &spans {
        for key in CONTENT {
            assert_eq!(attr(span, key), None, "`{}` has `{key}`", span.name);
        }
        let values = span.attributes.iter().map(|kv| kv.value.to_string()).chain(
            span.events.iter().flat_map(|e| {
                e.attributes
                    .iter()
                    .map(|kv| kv.value.to_string())
                    .chain([e.name.to_string()])
            }),
        );
        for value in values {
            assert!(
                !value.contains("secret"),
                "`{}` records contents: {value}",
                span.name
            );
        }
    }
}

#[tokio::test]
async fn capture_content_records_messages_and_tool_arguments_as_json() {
    let spans = run(true).await;

    let first = named(&spans, "chat gpt-4o-mini")
        .into_iter()
        .find(|s| int(s, "gen_ai.usage.input_tokens") == 10)
        .unwrap();
    let input: serde_json::Value =
        serde_json::from_str(&text(first, "gen_ai.input.messages")).unwrap();
    assert_eq!(
        input,
        json!([{"role": "user", "parts": [{"type": "text", "content": "a secret prompt"}]}])
    );
    let system: serde_json::Value =
        serde_json::from_str(&text(first, "gen_ai.system_instructions")).unwrap();
    assert_eq!(
        system,
        json!([{"type": "text", "content": "You are a test agent."}])
    );
    let output: serde_json::Value =
        serde_json::from_str(&text(first, "gen_ai.output.messages")).unwrap();
    assert_eq!(output[0]["finish_reason"], "tool_call");
    assert_eq!(
        output[0]["parts"][2],
        json!({"type": "tool_call", "id": "call_0_2", "name": "agent__Worker",
               "arguments": {"message": "secret question"}})
    );

    let incs = named(&spans, "execute_tool inc");
    let allowed = incs
        .iter()
        .find(|s| text(s, "gen_ai.tool.call.id") == "call_0_0")
        .unwrap();
    assert_eq!(text(allowed, "gen_ai.tool.call.arguments"), r#"{"a":1}"#);
    assert_eq!(text(allowed, "gen_ai.tool.call.result"), r#""2""#);
    let denied = incs
        .iter()
        .find(|s| text(s, "gen_ai.tool.call.id") == "call_0_1")
        .unwrap();
    assert_eq!(text(denied, "gen_ai.tool.call.arguments"), r#"{"a":13}"#);
    assert_eq!(attr(denied, "gen_ai.tool.call.result"), None);
    assert_eq!(
        denied.status,
        Status::error("tool call denied by `guard`: unlucky")
    );

    // The child records its contents too (the setting is the session's).
    let worker_chat = one(&spans, "chat claude-sonnet-4-5");
    let input: serde_json::Value =
        serde_json::from_str(&text(worker_chat, "gen_ai.input.messages")).unwrap();
    assert_eq!(input[0]["parts"][0]["content"], "secret question");
}

/// A 5 MB tool result (with a bidi control) under `CaptureContent`: every
/// content attribute is at most `SPAN_CONTENT_LIMIT` bytes and its
/// marker, with the control escaped.
#[tokio::test]
async fn captured_contents_are_bounded_and_escaped() {
    use hookwire::outside::SPAN_CONTENT_LIMIT;
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry().with(otel::layer(&provider));
    let _guard = tracing::subscriber::set_default(subscriber);
    let tools = Router::new().tool(FnTool::new("big", "A big text.", |_: Add| async move {
        format!("\u{202e}{}", "x".repeat(5 * 1024 * 1024))
    }));
    let mut runner = Runner::new(
        test_agent("boss", tools),
        model(
            "openai:gpt-4o-mini",
            [Turn::call("big", json!({"a": 1})), Turn::text("done")],
        ),
    )
    .with_session_value(CaptureContent);
    runner.run("go").await.unwrap();
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    let result = text(one(&spans, "execute_tool big"), "gen_ai.tool.call.result");
    assert!(result.starts_with("\"\\u{202e}xxx"), "{}", &result[..40]);
    assert!(
        result.ends_with(" bytes]"),
        "{}",
        &result[result.len() - 40..]
    );
    let mut seen = 0;
    for span in &spans {
        for key in CONTENT {
            if let Some(Value::String(s)) = attr(span, key) {
                seen += 1;
                let s = s.as_str();
                assert!(
                    s.len() <= SPAN_CONTENT_LIMIT + 40,
                    "{key}: {} bytes",
                    s.len()
                );
                assert!(!s.contains('\u{202e}'), "{key}");
            }
        }
    }
    // The result, and the second chat's input that holds it.
    assert!(seen >= 5, "{seen}");
}
