//! `#[tool]`, `#[hook]` and `#[agent]` end to end: what the model sees, what
//! ran, in what order.

use std::sync::Mutex;

use hookwire::{
    CallScope, Decision, Json, Next, Outcome, Router, Tool, ToolArgs, ToolCall, ToolContext,
    ToolHandler, ToolSet, chain,
};
use serde_json::json;

/// What ran, in order, per test (each test uses its own key).
static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn log(entry: impl Into<String>) {
    LOG.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(entry.into());
}

fn take_log(prefix: &str) -> Vec<String> {
    let mut all = LOG.lock().unwrap_or_else(|p| p.into_inner());
    let (mine, rest): (Vec<String>, Vec<String>) =
        all.drain(..).partition(|e| e.starts_with(prefix));
    *all = rest;
    mine
}

/// Adds two numbers.
#[hookwire::tool]
async fn add(
    /// The first number.
    a: i64,
    /// The second number; zero when absent.
    b: Option<i64>,
) -> Json<i64> {
    log(format!("t:add({a}, {b:?})"));
    Json(a + b.unwrap_or(0))
}

/// Echoes a message, synchronously.
#[hookwire::tool(name = "say", strict)]
fn echo(message: String) -> String {
    message
}

/// Fails on purpose.
#[hookwire::tool]
fn fail(cx: &ToolContext, why: String) -> Result<String, String> {
    Err(format!("{} failed: {why}", cx.tool()))
}

/// Records before and after.
#[hookwire::hook]
async fn outer(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    log(format!("{}:outer:before", cx.tool_use_id()));
    let out = next.run(cx, args).await;
    log(format!("{}:outer:after", cx.tool_use_id()));
    out
}

/// Doubles `a` before the call.
#[hookwire::hook]
async fn double_a(cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    log(format!("{}:double_a", cx.tool_use_id()));
    if let Some(a) = args.get("a").and_then(|v| v.as_i64()) {
        if args.insert("a", json!(a * 2)).is_err() {
            return Decision::Deny("arguments are not an object".into());
        }
    }
    Decision::Continue
}

/// Tags the result.
#[hookwire::hook]
async fn tag(cx: &mut ToolContext, outcome: &mut Outcome) {
    log(format!("{}:tag", cx.tool_use_id()));
    if let Ok(result) = outcome {
        result.append_text(" [tagged]");
    }
}

/// Denies every call whose `a` is negative.
#[hookwire::hook(match = "add")]
async fn no_negative(
    cx: &mut ToolContext,
    args: &mut ToolArgs,
) -> Result<Decision, hookwire::HookError> {
    log(format!("{}:no_negative", cx.tool_use_id()));
    Ok(match args.get("a").and_then(|v| v.as_i64()) {
        Some(a) if a < 0 => Decision::Deny(format!("a = {a} is negative")),
        _ => Decision::Continue,
    })
}

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(id, name, ToolArgs::from_json(args.to_string()))
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"))
        .block_on(f)
}

#[test]
fn tool_definition_comes_from_the_signature_and_docs() {
    let def = add.definition();
    assert_eq!(def.name, "add");
    assert_eq!(def.description, "Adds two numbers.");
    assert_eq!(
        def.input_schema,
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "int64", "description": "The first number."},
                "b": {"type": ["integer", "null"], "format": "int64", "description": "The second number; zero when absent."}
            },
            "required": ["a"]
        })
    );
    let def = echo.definition();
    assert_eq!(def.name, "say");
    assert!(def.strict);
    assert_eq!(def.input_schema["additionalProperties"], json!(false));
    assert_eq!(def.input_schema["required"], json!(["message"]));
}

#[test]
fn hooks_from_fns_run_in_declared_order_with_chain() {
    let chained = chain!(outer, tag, double_a => ToolHandler(add));
    let tools = Router::new().route(add.definition(), hookwire::ToolSource::Function, chained);
    let result = block_on(tools.call(
        &CallScope::new("t"),
        call("c1", "add", json!({"a": 5, "b": 1})),
    ));
    assert_eq!(result.text_content(), "11 [tagged]");
    assert!(!result.is_error);
    assert_eq!(
        take_log("c1:"),
        ["c1:outer:before", "c1:double_a", "c1:tag", "c1:outer:after"]
    );
}

#[test]
fn errors_and_malformed_arguments_become_error_results() {
    let tools = Router::new().tool(fail).tool(add);
    let scope = CallScope::new("t");
    let result = block_on(tools.call(&scope, call("c2", "fail", json!({"why": "no"}))));
    assert!(result.is_error);
    assert_eq!(result.text_content(), "tool `fail` failed: fail failed: no");
    let result = block_on(tools.call(&scope, call("c3", "add", json!({"a": "x"}))));
    assert!(result.is_error);
    assert!(
        result.text_content().contains("a"),
        "{}",
        result.text_content()
    );
    assert!(take_log("t:add").is_empty(), "the tool never ran");
}

#[test]
fn a_matching_hook_skips_other_tools() {
    let tools = Router::new()
        .route(
            add.definition(),
            hookwire::ToolSource::Function,
            chain!(no_negative => ToolHandler(add)),
        )
        .route(
            echo.definition(),
            hookwire::ToolSource::Function,
            chain!(no_negative => ToolHandler(echo)),
        );
    let scope = CallScope::new("t");
    let result = block_on(tools.call(&scope, call("c4", "add", json!({"a": -1}))));
    assert!(result.is_error);
    assert!(result.text_content().contains("a = -1 is negative"));
    let result = block_on(tools.call(&scope, call("c5", "say", json!({"message": "hi"}))));
    assert_eq!(result.text_content(), "hi");
    assert_eq!(take_log("c4:"), ["c4:no_negative"]);
    assert!(
        take_log("c5:").is_empty(),
        "no_negative does not match `say`"
    );
}

#[test]
fn the_body_stays_callable() {
    assert_eq!(echo::run("x".into()), "x");
}
