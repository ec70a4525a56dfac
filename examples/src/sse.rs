//! A run served over HTTP as Server-Sent Events (axum): `GET
//! /run?prompt=...` runs one session of a small agent and streams its
//! events as they happen ([`Runner::into_stream`]), one SSE event per
//! [`RunEvent`]: the SSE event's name is the event's kind (`trace`,
//! `text_delta`, `tool_started`, `progress`, `usage`, `done`, ...), its data
//! the event as JSON. A client that disconnects drops the stream, which
//! cancels the run.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use futures_util::{Stream, StreamExt};
use hookwire::agent::{AgentConfig, BasicAgent, RunEvent, Runner};
use hookwire::model::{Model, ScriptedModel, Turn};
use hookwire::{
    Outcome, Router, Tool, ToolContext, ToolHandler, ToolResult, call::NoArgs, toolset::RouterEnd,
    toolset::RouterEntry,
};
use serde::Deserialize;

/// `count`: counts to three, reporting each number as progress.
pub struct Count;

impl Tool for Count {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "count"
    }

    fn description(&self) -> &str {
        "Counts to three."
    }

    async fn call(&self, cx: &ToolContext, _args: NoArgs) -> Outcome {
        for n in 1..=3 {
            cx.progress(format!("{n}"));
            tokio::task::yield_now().await;
        }
        Ok(ToolResult::text("3"))
    }
}

/// The agent every request runs a session of.
pub type Counter = BasicAgent<Router<RouterEntry<ToolHandler<Count>, RouterEnd>>>;

/// What the server shares between requests: one agent value and one model.
struct App {
    agent: Arc<Counter>,
    model: Arc<dyn Model>,
}

/// The query of `GET /run`.
#[derive(Debug, Deserialize)]
struct RunQuery {
    prompt: String,
}

/// The agent: one tool, `count`.
pub fn counter() -> Counter {
    BasicAgent::new(
        AgentConfig::new("counter").with_instruction("Count when asked."),
        Router::new().tool(Count),
    )
}

/// The scripted model (by conversation, so one value serves every
/// session): call `count`, then answer.
pub fn scripted_model() -> ScriptedModel {
    ScriptedModel::from_turns([
        Turn::call("count", serde_json::json!({})),
        Turn::text("I counted to 3."),
    ])
    .by_conversation()
}

/// The HTTP app: `GET /run?prompt=...` streams a run of [`counter`] on
/// `model`.
pub fn app(model: Arc<dyn Model>) -> axum::Router {
    let state = Arc::new(App {
        agent: Arc::new(counter()),
        model,
    });
    axum::Router::new()
        .route("/run", get(run))
        .with_state(state)
}

async fn run(
    State(app): State<Arc<App>>,
    Query(query): Query<RunQuery>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let runner = Runner::new(app.agent.clone(), app.model.clone());
    let events = runner
        .into_stream(query.prompt)
        .map(|event| Ok(sse_event(&event)));
    Sse::new(events).keep_alive(KeepAlive::default())
}

/// One run event as an SSE event.
pub fn sse_event(event: &RunEvent) -> Event {
    let data = serde_json::to_string(event)
        .unwrap_or_else(|e| format!("{{\"event\":\"error\",\"error\":\"{e}\"}}"));
    Event::default().event(event.kind.name()).data(data)
}

/// Serves [`app`] on `listener` until the process ends.
pub async fn serve(
    listener: tokio::net::TcpListener,
    model: Arc<dyn Model>,
) -> std::io::Result<()> {
    axum::serve(listener, app(model)).await
}
