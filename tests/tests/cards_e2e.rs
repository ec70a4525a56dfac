//! The agents generated from `codegen-cli/tests/cards/good` by
//! `hookwire_codegen::Builder` (see `build.rs`), compiled against the
//! runtime with `missing_docs` and `unsafe_code` denied, and run.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![deny(missing_docs, unsafe_code)]

mod agents {
    hookwire::include_agents!();
}

use agents::{LondonProjectManager, NyProjectManager, PmoOrchestrator};
use hookwire::agent::{AgentDecl, Frequency, HistorySource, HookEvent};
use hookwire::{CallScope, ToolArgs, ToolCall, ToolSet};

fn run(tools: &impl ToolSet, name: &str, args: &str) -> hookwire::ToolResult {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(tools.call(
        &CallScope::new("test"),
        ToolCall::new("c1", name, ToolArgs::from_json(args)),
    ))
}

#[test]
fn card_tools_have_their_functions_schemas_and_docs() {
    let defs = PmoOrchestrator.tools().definitions();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["add_one"]);
    assert_eq!(defs[0].description, "Adds one to `x`.");
    assert_eq!(defs[0].input_schema["properties"]["x"]["type"], "integer");
    assert_eq!(defs[0].input_schema["required"], serde_json::json!(["x"]));

    let names: Vec<String> = NyProjectManager
        .tools()
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["add_one", "project_status"]);
    assert!(LondonProjectManager.tools().definitions().is_empty());
}

#[test]
fn card_hooks_run_in_declared_order_around_the_tool() {
    // audit_hook (outer) -> clamp (pre, match add_*) -> add_one.
    let result = run(PmoOrchestrator.tools(), "add_one", r#"{"x": 50}"#);
    assert!(!result.is_error);
    assert_eq!(result.text_content(), "11 [audit]");
    let result = run(PmoOrchestrator.tools(), "add_one", r#"{"x": 2}"#);
    assert_eq!(result.text_content(), "3 [audit]");
    // NY has no hooks.
    let result = run(
        NyProjectManager.tools(),
        "project_status",
        r#"{"project": "Anthropic"}"#,
    );
    assert_eq!(result.text_content(), "Anthropic: on track");
}

#[test]
fn unknown_tools_and_bad_arguments_are_error_results() {
    let result = run(PmoOrchestrator.tools(), "project_status", "{}");
    assert!(result.is_error);
    assert_eq!(result.text_content(), "unknown tool `project_status`");
    assert!(!PmoOrchestrator.tools().contains("project_status"));
    assert!(PmoOrchestrator.tools().contains("add_one"));
    let result = run(PmoOrchestrator.tools(), "add_one", r#"{"x": "ten"}"#);
    assert!(result.is_error);
    assert!(
        result.text_content().contains("invalid arguments"),
        "{}",
        result.text_content()
    );
}

#[test]
fn card_fields_reach_the_agent_config() {
    let c = PmoOrchestrator.config();
    assert_eq!(c.name, "PMO-orchestrator");
    assert!(c.default);
    assert!(c.instruction.starts_with("Get project updates"));
    assert_eq!(c.servers, ["time"]);
    assert_eq!(c.mcp_tools[0].server, "time");
    assert_eq!(c.mcp_tools[0].globs, ["get_time"]);
    assert_eq!(c.agents, ["NY-Project-Manager", "London-Project-Manager"]);
    assert_eq!(c.max_parallel, Some(128));
    assert_eq!(c.child_timeout, Some(std::time::Duration::from_secs(120)));
    assert_eq!(c.max_display_instances, Some(20));
    assert_eq!(c.history_source, HistorySource::None);
    let hook = &c.request_hooks[0];
    assert_eq!(hook.event, HookEvent::OnRequestStart);
    assert_eq!(hook.toolset_name.as_deref(), Some("memory_server"));
    assert_eq!(hook.tool_name, "get_memories");
    assert_eq!(hook.arguments["user_id"], "current");
    assert_eq!(hook.frequency, Frequency::Always);

    let ny = NyProjectManager.config();
    assert_eq!(ny.instruction, "You are the New York project manager.");
    assert_eq!(
        ny.description.as_deref(),
        Some("Reports on New York projects.")
    );

    let london = LondonProjectManager.config();
    assert_eq!(london.model.as_deref(), Some("scripted"));
    assert!(!london.use_history);
    assert_eq!(
        london
            .tool_input_schema
            .as_ref()
            .map(|s| s["required"].clone()),
        Some(serde_json::json!(["message"]))
    );
}
