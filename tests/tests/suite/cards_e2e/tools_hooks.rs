//! The cards' tools and hooks: functions, schemas and docs, hooks in
//! declared order, every hook shape, error results, the fields carried into
//! the configuration, and tools registered at run time.

use super::*;

#[test]
fn card_tools_have_their_functions_schemas_and_docs() {
    let defs = PmoOrchestrator::new().tools().definitions();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "add_one",
            "agent__NY-Project-Manager",
            "agent__London-Project-Manager"
        ]
    );
    // A child's tool input schema: `{message}` by default, or its own.
    assert_eq!(defs[1].description, "Reports on New York projects.");
    assert_eq!(
        defs[2].input_schema["required"],
        serde_json::json!(["message"])
    );
    assert_eq!(defs[0].description, "Adds one to `x`.");
    assert_eq!(defs[0].input_schema["properties"]["x"]["type"], "integer");
    assert_eq!(defs[0].input_schema["required"], serde_json::json!(["x"]));

    let names: Vec<String> = NyProjectManager::new()
        .tools()
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["add_one", "project_status"]);
    assert!(LondonProjectManager::new().tools().definitions().is_empty());
}

#[test]
fn card_hooks_run_in_declared_order_around_the_tool() {
    // audit_hook (outer) -> clamp (pre, match add_*) -> tag -> add_one.
    let result = run(PmoOrchestrator::new().tools(), "add_one", r#"{"x": 50}"#);
    assert!(!result.is_error);
    assert_eq!(result.text_content(), "11 [tag] [audit]");
    let result = run(PmoOrchestrator::new().tools(), "add_one", r#"{"x": 2}"#);
    assert_eq!(result.text_content(), "3 [tag] [audit]");
    // NY has no hooks.
    let result = run(
        NyProjectManager::new().tools(),
        "project_status",
        r#"{"project": "Anthropic"}"#,
    );
    assert_eq!(result.text_content(), "Anthropic: on track");
}

#[test]
fn the_shapes_cards_tools_return_numbers_and_bools_as_json_through_every_hook_shape() {
    use agents::Shapes;
    let text = |tool: &str, args: &str| {
        let result = run(Shapes::new().tools(), tool, args);
        (result.is_error, result.text_content())
    };
    assert_eq!(
        text("count", r#"{"text": "héllo"}"#),
        (false, "5".to_owned())
    );
    assert_eq!(text("is_even", r#"{"n": 4}"#), (false, "true".to_owned()));
    assert_eq!(text("half", r#"{"x": 3}"#), (false, "1.5".to_owned()));
    assert_eq!(text("small", r#"{"n": 7}"#), (false, "7".to_owned()));
    assert_eq!(
        text("checked", r#"{"n": 1}"#),
        (false, "positive".to_owned())
    );
    let (is_error, message) = text("small", r#"{"n": 300}"#);
    assert!(is_error, "{message}");
    let (is_error, message) = text("ratio", r#"{"a": 1, "b": 0}"#);
    assert!(
        is_error && message.contains("a number JSON cannot hold"),
        "{message}"
    );
}

#[test]
fn unknown_tools_and_bad_arguments_are_error_results() {
    let result = run(PmoOrchestrator::new().tools(), "project_status", "{}");
    assert!(result.is_error);
    assert_eq!(result.text_content(), "unknown tool `project_status`");
    assert!(!PmoOrchestrator::new().tools().contains("project_status"));
    assert!(PmoOrchestrator::new().tools().contains("add_one"));
    let result = run(PmoOrchestrator::new().tools(), "add_one", r#"{"x": "ten"}"#);
    assert!(result.is_error);
    assert!(
        result.text_content().contains("invalid arguments"),
        "{}",
        result.text_content()
    );
}

/// The fields of the cards whose effect needs a live MCP server or model
/// (servers, tool filters, display limits, a model name) are at least
/// carried into the agent's configuration. Every other field is shown to
/// act by the tests below.
#[test]
fn card_fields_without_an_offline_effect_are_carried_into_the_config() {
    let c = PmoOrchestrator::new();
    let c = c.config();
    assert_eq!(c.name, "PMO-orchestrator");
    assert!(c.default);
    assert_eq!(c.servers, ["time"]);
    assert_eq!(c.mcp_tools[0].server, "time");
    assert_eq!(c.mcp_tools[0].globs, ["get_time", "get_current_time"]);
    assert_eq!(c.max_display_instances, Some(20));
    let london = LondonProjectManager::new();
    assert_eq!(london.config().model.as_deref(), Some("scripted"));
}

/// A card with `runtime_tools: true`: a tool registered at run time runs
/// through its agent-level hooks, `source:runtime` selecting it and not the
/// card's function tool.
#[test]
fn a_card_with_runtime_tools_hooks_the_registered_tools_by_source() {
    use hookwire::agent::WithTools;
    use hookwire::{FnTool, Router, ToolSource, call::NoArgs};
    let tools = Router::new().tool(FnTool::new("echo", "Echoes.", |_: NoArgs| async {
        "echoed".to_owned()
    }));
    let agent = WithTools::new(agents::RuntimeDesk::new(), tools);
    assert!(agent.warnings().is_empty(), "{:?}", agent.warnings());
    assert_eq!(agent.tools().source("echo"), Some(ToolSource::Runtime));
    assert_eq!(
        run(agent.tools(), "echo", "{}").text_content(),
        "echoed [tag] [audit]"
    );
    assert_eq!(
        run(agent.tools(), "add_one", r#"{"x": 1}"#).text_content(),
        "2 [audit]"
    );
}

#[test]
fn a_cards_typed_hooks_read_and_rewrite_their_tools_arguments_as_fields() {
    use hookwire::agent::{Runner, TraceEvent};
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([
        Turn::call("refund", serde_json::json!({"to": "acme", "amount": 70}))
            .and_call("refund", serde_json::json!({"to": "mallory", "amount": 1}))
            .and_call("pay", serde_json::json!({"to": "acme", "amount": 70})),
        Turn::text("done"),
    ]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let out = rt
        .block_on(Runner::new(agents::TypedDesk::new(), model).run("go"))
        .unwrap();
    let results: Vec<(String, Option<serde_json::Value>)> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some((
                call.result.text_content(),
                call.received.as_ref().map(|r| r.to_value().unwrap()),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            // `cap_refund` (`#[hookwire::hook]`) rewrote the amount.
            (
                "refunded 50 to acme".to_owned(),
                Some(serde_json::json!({"to": "acme", "amount": 50}))
            ),
            // `no_refund_to_mallory` (a plain function) read the name.
            (
                // The tool is marked `#[hookwire::tool]` in `typed_desk.rs`: its
                // context names its Rust path where the card includes it.
                "tool call denied by `no_refund_to_mallory`: no refund to mallory by suite::cards_e2e::agents::__rust_refs::typed_desk_rs::refund".to_owned(),
                None
            ),
            // `match: refund` keeps both off `pay`.
            ("paid 70 to acme".to_owned(), None),
        ]
    );
}
