//! Native providers (feature `providers`) against a local server speaking
//! each provider's documented wire format: what the provider received
//! (system, messages, tool schemas, tool results) and what the agent got
//! back (the tool call run, the final text, the usage).
#![cfg(feature = "providers")]

use crate::agent_common::test_agent;
use crate::mock_http::{Answer, Seen, serve};

use std::process::Command;
use std::sync::mpsc::Receiver;

use hookwire::agent::{RunStatus, Runner};
use hookwire::model::{
    Message, Model, ModelError, ModelRequest, Provider, ProviderConfig, ProviderModel, from_spec,
};
use hookwire::{FnTool, Json, Router, ToolDefinition};
use serde_json::{Value, json};

mod anthropic;
mod environment;
mod gemini;
mod ollama;
mod openai;
mod thinking;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Weather {
    /// The city.
    city: String,
}

fn weather_tools() -> impl hookwire::ToolSet + 'static {
    Router::new().tool(FnTool::new(
        "weather",
        "Weather for a city.",
        |w: Weather| async move { Json(json!({"city": w.city, "temp": -3})) },
    ))
}

/// Runs the forecaster agent on `model`: one tool call, then an answer.
async fn forecast(model: ProviderModel) -> hookwire::agent::RunOutput {
    let mut agent = test_agent("forecaster", weather_tools());
    *agent.config_mut() = agent.config_mut().clone().with_instruction("You forecast.");
    let mut runner = Runner::new(agent, model);
    let out = runner.run("Weather in Oslo?").await.unwrap();
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    out
}

/// The tool calls of a run as `id tool(arguments) -> result`.
fn calls_run(out: &hookwire::agent::RunOutput) -> Vec<String> {
    crate::agent_common::calls_run(&out.trace)
}

fn next(seen: &Receiver<Seen>) -> Seen {
    seen.recv_timeout(std::time::Duration::from_secs(10))
        .unwrap()
}

/// The weather tool's input schema as the agent offers it.
fn weather_schema() -> Value {
    let defs: Vec<ToolDefinition> = hookwire::ToolSet::definitions(&weather_tools());
    defs[0].input_schema.clone()
}

/// A content that is a string or a list of text blocks, as text.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        other => panic!("not a content: {other}"),
    }
}
