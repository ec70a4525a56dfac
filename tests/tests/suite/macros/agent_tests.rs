//! `#[agent]`: its configuration mirrors the attribute, and its chains run
//! agent hooks, then tool hooks, then the tool, each matcher resolved per
//! tool.

use super::*;
use hookwire::agent::{Agent, HistorySource};

#[test]
fn agent_config_mirrors_the_attribute() {
    let calc = Calc::new();
    let config = calc.config();
    assert_eq!(config.name, "calc");
    assert_eq!(config.instruction, "Do sums.");
    assert_eq!(config.description.as_deref(), Some("Adds numbers."));
    assert_eq!(config.max_parallel, Some(2));
    assert_eq!(
        config.child_timeout,
        Some(std::time::Duration::from_secs(30))
    );
    assert_eq!(config.history_source, HistorySource::Orchestrator);
    assert_eq!(config.model.as_deref(), Some("passthrough"));
    let names: Vec<String> = Calc::new()
        .tools()
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["add", "say"]);
    assert_eq!(Calc::new().tools().definitions()[0], add {}.definition());
}

#[test]
fn agent_chains_run_agent_hooks_then_tool_hooks_then_the_tool() {
    let scope = CallScope::new("calc");
    let result = block_on(
        Calc::new()
            .tools()
            .call(&scope, call("a1", "add", json!({"a": 4}))),
    );
    assert_eq!(result.text_content(), "8 [tagged]");
    assert_eq!(
        take_log("a1:"),
        [
            "a1:outer:before",
            "a1:no_negative",
            "a1:double_a",
            "a1:inner_mark",
            "a1:add(8, None)",
            "a1:tag",
            "a1:outer:after"
        ]
    );
}

#[test]
fn matchers_are_resolved_per_tool_and_a_deny_short_circuits() {
    let scope = CallScope::new("calc");
    // `say` matches neither `no_negative` (match = "add" on the hook) nor
    // `double_a` (match = "add" in the agent), and has no tool-level hook.
    let result = block_on(
        Calc::new()
            .tools()
            .call(&scope, call("a2", "say", json!({"message": "hi"}))),
    );
    assert_eq!(result.text_content(), "hi [tagged]");
    assert_eq!(
        take_log("a2:"),
        ["a2:outer:before", "a2:tag", "a2:outer:after"]
    );

    // A deny from `no_negative`: nothing declared after it runs (not
    // `double_a`, `inner_mark`, `tag` or the tool); `outer` runs around it.
    let result = block_on(
        Calc::new()
            .tools()
            .call(&scope, call("a3", "add", json!({"a": -3}))),
    );
    assert!(result.is_error);
    assert!(result.text_content().contains("a = -3 is negative"));
    assert_eq!(
        take_log("a3:"),
        ["a3:outer:before", "a3:no_negative", "a3:outer:after"]
    );
}

#[test]
fn unknown_tools_are_an_error_result() {
    let scope = CallScope::new("calc");
    let result = block_on(
        Calc::new()
            .tools()
            .call(&scope, call("a4", "nope", json!({}))),
    );
    assert!(result.is_error);
    assert!(!Calc::new().tools().contains("nope"));
    assert!(Calc::new().tools().contains("say"));
}
