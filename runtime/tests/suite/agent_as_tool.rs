//! Agents as tools: `agent__<Name>`, a fresh session of the child per call,
//! and the orchestrator's options that govern those calls: max_parallel
//! (500 calls, limit reached and never exceeded, none dropped), child
//! timeout, history source and merge target (per session, exported), output
//! extractor.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_common::{TestAgent, test_agent};
use hookwire::BoxFuture;
use hookwire::agent::{
    AgentConfig, AgentTool, BasicAgent, HistoryMergeTarget, HistorySource, Runner,
};
use hookwire::model::{
    Message, Model, ModelError, ModelRequest, ModelResponse, PassthroughModel, ScriptedModel, Turn,
};
use hookwire::{
    Handler, Router, Tool, ToolArgs, ToolContext, ToolHandler, ToolResult, ToolSource,
    toolset::RouterEnd,
};
use serde_json::json;

fn child(name: &'static str) -> TestAgent<Router<RouterEnd>> {
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
    hookwire::call::into_result(
        tool.call(&mut cx, ToolArgs::from_value(args).unwrap())
            .await,
    )
}

fn gauge() -> Arc<Gauge> {
    Arc::new(Gauge {
        running: AtomicUsize::new(0),
        peak: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
    })
}

/// The orchestrator's `max_parallel` bounds its calls of a child: 500
/// calls in one step, at most 7 at once, none dropped, every result in
/// call order.
#[tokio::test]
async fn the_orchestrators_max_parallel_bounds_its_calls_of_a_child_and_none_is_dropped() {
    let gauge = gauge();
    let config = AgentConfig::new("Boss").with_max_parallel(7);
    let worker = AgentTool::new(child("Worker"), gauge.clone()).with_orchestrator(&config);
    assert_eq!(worker.name(), "agent__Worker");
    let boss = BasicAgent::new(config, Router::new().tool(worker));
    let n = 500;
    let step = (0..n).fold(Turn::default(), |turn, i| {
        turn.and_call("agent__Worker", json!({"message": format!("m{i}")}))
    });
    let model = ScriptedModel::from_turns([step, Turn::text("done")]);
    let mut runner = Runner::new(boss, model);
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "done");
    assert_eq!(gauge.done.load(Ordering::SeqCst), n);
    assert_eq!(
        gauge.peak.load(Ordering::SeqCst),
        7,
        "the limit is reached and never exceeded"
    );
    let results: Vec<String> = runner.history()[2..2 + n]
        .iter()
        .map(|m| m.text().to_owned())
        .collect();
    let expected: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
    assert_eq!(results, expected);
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

/// The orchestrator's `child_timeout_sec`: a child slower than it gives
/// an error result, and the run goes on to its final answer. The same
/// timeout declared on the child does nothing.
#[tokio::test(start_paused = true)]
async fn a_child_slower_than_the_orchestrators_timeout_gives_an_error_result_and_the_run_goes_on() {
    let mut slow = child("Slow");
    // Declared on the child: not the option that governs the call.
    *slow.config_mut() = slow
        .config_mut()
        .clone()
        .with_child_timeout(Duration::from_secs(7200));
    let config = AgentConfig::new("Boss").with_child_timeout(Duration::from_millis(50));
    let tool = AgentTool::new(slow, Arc::new(Slow)).with_orchestrator(&config);
    let boss = BasicAgent::new(config, Router::new().tool(tool));
    let model = ScriptedModel::from_turns([
        Turn::call("agent__Slow", json!({"message": "hi"})),
        Turn::text("went on"),
    ]);
    let mut runner = Runner::new(boss, model);
    let out = runner.run("go").await.unwrap();
    assert_eq!(out.text, "went on");
    let result = runner.history()[2].tool_result().cloned().unwrap();
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "agent `agent__Slow` timed out after 50 ms"
    );
}

#[tokio::test]
async fn arguments_are_a_message_or_the_childs_input_schema() {
    let tool = ToolHandler(AgentTool::new(child("Echo"), Arc::new(PassthroughModel)));
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
    let mut weather = child("Weather");
    *weather.config_mut() = weather
        .config_mut()
        .clone()
        .with_tool_input_schema(schema.clone());
    let tool = ToolHandler(AgentTool::new(weather, Arc::new(PassthroughModel)));
    assert_eq!(tool.0.definition().input_schema, schema);
    let r = call(&tool, "c", json!({"city": "Oslo"})).await;
    assert_eq!(r.text_content(), r#"{"city":"Oslo"}"#);
}

#[tokio::test]
async fn the_output_extractor_shapes_the_result() {
    let tool = ToolHandler(
        AgentTool::new(child("Loud"), Arc::new(PassthroughModel)).with_output(|out, history| {
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

/// `history_source: child` + `history_merge_target: child` on the
/// orchestrator: the child remembers its earlier calls **in this session**;
/// another session of the same agent value starts the child fresh, and the
/// child's history is part of the session's exported state.
#[tokio::test]
async fn child_history_is_kept_per_session_and_exported() {
    let config = AgentConfig::new("Boss")
        .with_history_source(HistorySource::Child)
        .with_history_merge_target(HistoryMergeTarget::Child);
    let notes = AgentTool::new(child("Notes"), Arc::new(Memory)).with_orchestrator(&config);
    let boss = Arc::new(BasicAgent::new(config, Router::new().tool(notes)));
    let turns = |a: &str, b: &str| {
        ScriptedModel::from_turns([
            Turn::call("agent__Notes", json!({"message": a})),
            Turn::call("agent__Notes", json!({"message": b})),
            Turn::text("ok"),
        ])
    };
    let mut alice = Runner::new(boss.clone(), turns("alice-1", "alice-2"));
    alice.run("go").await.unwrap();
    let mut bob = Runner::new(boss.clone(), turns("bob-1", "bob-2"));
    bob.run("go").await.unwrap();
    // Each session's child saw only that session's earlier call.
    assert_eq!(alice.history()[2].text(), "alice-1");
    assert_eq!(alice.history()[4].text(), "alice-1+alice-2");
    assert_eq!(bob.history()[4].text(), "bob-1+bob-2");
    let state = bob.export_state();
    assert_eq!(state.children["agent__Notes"].len(), 4);
    assert!(!serde_json::to_string(&state).unwrap().contains("alice"));
    // Restored into a new session, the child goes on from its history.
    let mut again = Runner::new(boss, turns("bob-3", "bob-4"))
        .with_state_seal(hookwire::agent::StateSeal::unsigned());
    again.import_state(state).unwrap();
    again.run("more").await.unwrap();
    let last = again.history().len() - 2;
    assert_eq!(again.history()[last].text(), "bob-1+bob-2+bob-3+bob-4");
    // Without a child source, every call starts fresh.
    let fresh = ToolHandler(AgentTool::new(child("Fresh"), Arc::new(Memory)));
    call(&fresh, "1", json!({"message": "a"})).await;
    assert_eq!(
        call(&fresh, "2", json!({"message": "b"}))
            .await
            .text_content(),
        "b"
    );
}

/// The options are the orchestrator's: declared on the child, they do
/// nothing (the child starts fresh and nothing is merged).
#[tokio::test]
async fn history_options_declared_on_the_child_do_not_govern_its_calls() {
    let mut sub = child("Sub");
    *sub.config_mut() = sub
        .config_mut()
        .clone()
        .with_history_source(HistorySource::Orchestrator)
        .with_history_merge_target(HistoryMergeTarget::Orchestrator);
    let config = AgentConfig::new("Boss");
    let tool = AgentTool::new(sub, Arc::new(Memory)).with_orchestrator(&config);
    let boss = BasicAgent::new(config, Router::new().tool(tool));
    let model = ScriptedModel::from_turns([
        Turn::call("agent__Sub", json!({"message": "sub task"})),
        Turn::text("all done"),
    ]);
    let mut runner = Runner::new(boss, model);
    runner.run("big task").await.unwrap();
    let h = runner.history();
    assert_eq!(h[2].text(), "sub task");
    assert_eq!(h[3], Message::assistant("all done"));
}

#[tokio::test]
async fn history_source_messages_starts_the_child_from_the_messages_argument() {
    let config = AgentConfig::new("Boss").with_history_source(HistorySource::Messages);
    let tool =
        ToolHandler(AgentTool::new(child("Reader"), Arc::new(Memory)).with_orchestrator(&config));
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
    let mut scripted = child("Scripted");
    *scripted.config_mut() = scripted
        .config_mut()
        .clone()
        .with_model("scripted:/no/such/script.yaml");
    let tool = ToolHandler(AgentTool::with_configured_model(scripted));
    let r = call(&tool, "1", json!({"message": "hi"})).await;
    assert!(r.is_error);
    assert!(r.text_content().contains("/no/such/script.yaml"), "{r:?}");
    let echo = ToolHandler(AgentTool::with_configured_model(child("Echo")));
    assert_eq!(
        call(&echo, "1", json!({"message": "hi"}))
            .await
            .text_content(),
        "hi"
    );
}
