//! Agents as tools: `agent__<Name>`, fresh child per call, max_parallel
//! (10,000 calls, limit never exceeded, none dropped), child timeout,
//! history source and merge target, output extractor.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_common::{TestAgent, test_agent};
use hookwire::agent::{AgentTool, HistoryMergeTarget, HistorySource, Runner};
use hookwire::approval::BoxFuture;
use hookwire::model::{
    Message, Model, ModelError, ModelRequest, ModelResponse, PassthroughModel, ScriptedModel, Turn,
};
use hookwire::{
    End, Handler, Router, Tool, ToolArgs, ToolContext, ToolHandler, ToolResult, ToolSource,
};
use serde_json::json;

fn child(name: &'static str) -> TestAgent<Router<End>> {
    let mut agent = test_agent(name, Router::new());
    *agent.config_mut() = agent
        .config_mut()
        .clone()
        .with_description(format!("The {name} agent."));
    agent
}

/// A model that records how many of its calls run at once.
struct Gauge {
    running: AtomicUsize,
    peak: AtomicUsize,
    done: AtomicUsize,
}

impl Model for Gauge {
    fn name(&self) -> &str {
        "gauge"
    }
    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(now, Ordering::SeqCst);
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
            self.running.fetch_sub(1, Ordering::SeqCst);
            self.done.fetch_add(1, Ordering::SeqCst);
            Ok(ModelResponse::text(request.last_user_text().unwrap_or("")))
        })
    }
}

async fn call<T: Tool>(tool: &ToolHandler<T>, id: &str, args: serde_json::Value) -> ToolResult {
    let mut cx = ToolContext::new("t", ToolSource::Agent, id);
    hookwire::into_result(
        tool.call(&mut cx, ToolArgs::from_value(args).unwrap())
            .await,
    )
}

#[tokio::test]
async fn ten_thousand_concurrent_calls_never_exceed_max_parallel_and_none_is_dropped() {
    let gauge = Arc::new(Gauge {
        running: AtomicUsize::new(0),
        peak: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
    });
    let made = Arc::new(AtomicUsize::new(0));
    let m = made.clone();
    let factory = move || {
        m.fetch_add(1, Ordering::SeqCst);
        let mut a = child("Worker");
        *a.config_mut() = a.config_mut().clone().with_max_parallel(7);
        a
    };
    let tool = ToolHandler(AgentTool::new(factory, gauge.clone()));
    assert_eq!(tool.0.name(), "agent__Worker");
    let calls = (0..10_000).map(|i| {
        let tool = &tool;
        async move { call(tool, &i.to_string(), json!({"message": format!("m{i}")})).await }
    });
    let results = futures_util::future::join_all(calls).await;
    assert_eq!(results.len(), 10_000);
    for (i, r) in results.iter().enumerate() {
        assert!(!r.is_error, "{r:?}");
        assert_eq!(r.text_content(), format!("m{i}"));
    }
    assert_eq!(gauge.done.load(Ordering::SeqCst), 10_000);
    assert_eq!(
        gauge.peak.load(Ordering::SeqCst),
        7,
        "the limit is reached and never exceeded"
    );
    // One probe at construction, then a fresh child per call.
    assert_eq!(made.load(Ordering::SeqCst), 10_001);
}

/// A model that never answers in time.
struct Slow;

impl Model for Slow {
    fn name(&self) -> &str {
        "slow"
    }
    fn complete<'a>(
        &'a self,
        _request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(ModelResponse::text("late"))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn a_child_past_its_timeout_gives_an_error_result() {
    let factory = || {
        let mut a = child("Slow");
        *a.config_mut() = a
            .config_mut()
            .clone()
            .with_child_timeout(Duration::from_millis(50));
        a
    };
    let tool = ToolHandler(AgentTool::new(factory, Arc::new(Slow)));
    let r = call(&tool, "c", json!({"message": "hi"})).await;
    assert!(r.is_error);
    assert_eq!(
        r.text_content(),
        "agent `agent__Slow` timed out after 50 ms"
    );
}

#[tokio::test]
async fn arguments_are_a_message_or_the_childs_input_schema() {
    let tool = ToolHandler(AgentTool::new(|| child("Echo"), Arc::new(PassthroughModel)));
    let def = tool.0.definition();
    assert_eq!(def.input_schema["required"], json!(["message"]));
    assert_eq!(def.description, "The Echo agent.");
    let r = call(&tool, "c", json!({"msg": "x"})).await;
    assert!(r.is_error);
    assert!(
        r.text_content().contains("missing field `message`"),
        "{r:?}"
    );

    let schema =
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
    let s = schema.clone();
    let tool = ToolHandler(AgentTool::new(
        move || {
            let mut a = child("Weather");
            *a.config_mut() = a.config_mut().clone().with_tool_input_schema(s.clone());
            a
        },
        Arc::new(PassthroughModel),
    ));
    assert_eq!(tool.0.definition().input_schema, schema);
    let r = call(&tool, "c", json!({"city": "Oslo"})).await;
    assert_eq!(r.text_content(), r#"{"city":"Oslo"}"#);
}

#[tokio::test]
async fn the_output_extractor_shapes_the_result() {
    let tool = ToolHandler(
        AgentTool::new(|| child("Loud"), Arc::new(PassthroughModel)).with_output(|out, history| {
            ToolResult::text(format!(
                "{} ({} messages)",
                out.text.to_uppercase(),
                history.len()
            ))
        }),
    );
    let r = call(&tool, "c", json!({"message": "hi"})).await;
    assert_eq!(r.text_content(), "HI (2 messages)");
}

/// Answers with every user message it has seen, joined.
struct Memory;

impl Model for Memory {
    fn name(&self) -> &str {
        "memory"
    }
    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        let seen: Vec<String> = request
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::User { content } => Some(content.clone()),
                _ => None,
            })
            .collect();
        Box::pin(std::future::ready(Ok(ModelResponse::text(seen.join("+")))))
    }
}

#[tokio::test]
async fn history_source_child_and_merge_target_child_keep_the_childs_conversation() {
    let tool = ToolHandler(AgentTool::new(
        || {
            let mut a = child("Notes");
            *a.config_mut() = a
                .config_mut()
                .clone()
                .with_history_source(HistorySource::Child)
                .with_history_merge_target(HistoryMergeTarget::Child);
            a
        },
        Arc::new(Memory),
    ));
    assert_eq!(
        call(&tool, "1", json!({"message": "a"}))
            .await
            .text_content(),
        "a"
    );
    assert_eq!(
        call(&tool, "2", json!({"message": "b"}))
            .await
            .text_content(),
        "a+b"
    );
    assert_eq!(tool.0.child_history().len(), 4);
    // Without a child source, every call starts fresh.
    let fresh = ToolHandler(AgentTool::new(|| child("Fresh"), Arc::new(Memory)));
    call(&fresh, "1", json!({"message": "a"})).await;
    assert_eq!(
        call(&fresh, "2", json!({"message": "b"}))
            .await
            .text_content(),
        "b"
    );
}

#[tokio::test]
async fn orchestrator_history_flows_to_the_child_and_back() {
    let sub = AgentTool::new(
        || {
            let mut a = child("Sub");
            *a.config_mut() = a
                .config_mut()
                .clone()
                .with_history_source(HistorySource::Orchestrator)
                .with_history_merge_target(HistoryMergeTarget::Orchestrator);
            a
        },
        Arc::new(Memory),
    );
    let parent = test_agent("Boss", Router::new().tool(sub));
    let model = ScriptedModel::from_turns([
        Turn::call("agent__Sub", json!({"message": "sub task"})),
        Turn::text("all done"),
    ]);
    let mut runner = Runner::new(parent, model);
    let out = runner.run("big task").await.unwrap();
    assert_eq!(out.text, "all done");
    let h = runner.history();
    // The child saw the parent's prompt and its own message.
    assert_eq!(h[2].text(), "big task+sub task");
    // The child's conversation was merged after the tool result.
    assert_eq!(h[3], Message::user("sub task"));
    assert_eq!(h[4], Message::assistant("big task+sub task"));
    assert_eq!(h[5], Message::assistant("all done"));
    // And the trace says the call was an agent call.
    assert!(out.trace.iter().any(|e| matches!(e,
        hookwire::agent::TraceEvent::ToolCall { source: ToolSource::Agent, tool, .. } if tool == "agent__Sub")));
}

#[tokio::test]
async fn history_source_messages_starts_the_child_from_the_messages_argument() {
    let tool = ToolHandler(AgentTool::new(
        || {
            let mut a = child("Reader");
            *a.config_mut() = a
                .config_mut()
                .clone()
                .with_history_source(HistorySource::Messages);
            a
        },
        Arc::new(Memory),
    ));
    let r = call(
        &tool,
        "1",
        json!({"message": "c", "messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "b"}
        ]}),
    )
    .await;
    assert_eq!(r.text_content(), "a+b+c");
    assert_eq!(
        tool.0.definition().input_schema["properties"]["messages"]["type"],
        "array"
    );
    let bad = call(
        &tool,
        "2",
        json!({"message": "c", "messages": [{"role": "robot"}]}),
    )
    .await;
    assert!(bad.is_error);
    assert!(bad.text_content().contains("at `messages`"), "{bad:?}");
}

#[tokio::test]
async fn a_child_whose_model_cannot_be_set_up_gives_error_results() {
    let tool = ToolHandler(AgentTool::with_configured_model(|| {
        let mut a = child("Scripted");
        *a.config_mut() = a
            .config_mut()
            .clone()
            .with_model("scripted:/no/such/script.yaml");
        a
    }));
    let r = call(&tool, "1", json!({"message": "hi"})).await;
    assert!(r.is_error);
    assert!(r.text_content().contains("/no/such/script.yaml"), "{r:?}");
    let echo = ToolHandler(AgentTool::with_configured_model(|| child("Echo")));
    assert_eq!(
        call(&echo, "1", json!({"message": "hi"}))
            .await
            .text_content(),
        "hi"
    );
}
