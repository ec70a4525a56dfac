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
    cx: &ToolContext,
    /// The first number.
    a: i64,
    /// The second number; zero when absent.
    b: Option<i64>,
) -> Json<i64> {
    log(format!("{}:add({a}, {b:?})", cx.tool_use_id()));
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
    if let Some(a) = args.get("a").and_then(|v| v.as_i64())
        && args.insert("a", json!(a * 2)).is_err()
    {
        return Decision::Deny("arguments are not an object".into());
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
    let def = add {}.definition();
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
    let def = echo {}.definition();
    assert_eq!(def.name, "say");
    assert!(def.strict);
    assert_eq!(def.input_schema["additionalProperties"], json!(false));
    assert_eq!(def.input_schema["required"], json!(["message"]));
}

#[test]
fn hooks_from_fns_run_in_declared_order_with_chain() {
    let chained = chain!(outer {}, tag {}, double_a {} => ToolHandler(add {}));
    let tools = Router::new().route(add {}.definition(), hookwire::ToolSource::Function, chained);
    let result = block_on(tools.call(
        &CallScope::new("t"),
        call("c1", "add", json!({"a": 5, "b": 1})),
    ));
    assert_eq!(result.text_content(), "11 [tagged]");
    assert!(!result.is_error);
    assert_eq!(
        take_log("c1:"),
        [
            "c1:outer:before",
            "c1:double_a",
            "c1:add(10, Some(1))",
            "c1:tag",
            "c1:outer:after"
        ]
    );
}

/// What the model reads when a tool fails, and when its arguments are
/// malformed (the function is never entered): the exact texts.
#[test]
fn errors_and_malformed_arguments_become_error_results_the_model_reads() {
    let tools = Router::new().tool(fail {}).tool(add {});
    let scope = CallScope::new("t");
    let result = block_on(tools.call(&scope, call("c2", "fail", json!({"why": "no"}))));
    assert!(result.is_error);
    assert_eq!(result.text_content(), "tool `fail` failed: fail failed: no");
    let malformed = [
        (
            "c3",
            json!({"a": "x"}),
            "invalid arguments for tool `add` at `a`: invalid type: string \"x\", expected i64 at line 1 column 8",
        ),
        (
            "c3",
            json!({"b": 1}),
            "invalid arguments for tool `add`: missing field `a` at line 1 column 7",
        ),
        (
            "c3",
            json!([1, 2]),
            "invalid arguments for tool `add`: arguments must be a JSON object, got an array",
        ),
    ];
    for (id, args, expected) in malformed {
        let result = block_on(tools.call(&scope, call(id, "add", args.clone())));
        assert!(result.is_error, "{args}");
        assert_eq!(result.text_content(), expected, "{args}");
    }
    let result = block_on(tools.call(
        &scope,
        ToolCall::new("c3", "add", ToolArgs::from_json("{\"a\": 1")),
    ));
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "invalid arguments for tool `add`: EOF while parsing an object at line 1 column 7"
    );
    assert!(take_log("c3:").is_empty(), "the tool never ran");
}

#[test]
fn a_matching_hook_skips_other_tools() {
    let tools = Router::new()
        .route(
            add {}.definition(),
            hookwire::ToolSource::Function,
            chain!(no_negative {} => ToolHandler(add {})),
        )
        .route(
            echo {}.definition(),
            hookwire::ToolSource::Function,
            chain!(no_negative {} => ToolHandler(echo {})),
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

/// Counts the calls it sees.
#[hookwire::hook]
async fn inner_mark(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    log(format!("{}:inner_mark", cx.tool_use_id()));
    next.run(cx, args).await
}

/// A calculator.
#[hookwire::agent(
    name = "calc",
    instruction = "Do sums.",
    description = "Adds numbers.",
    function_tools = [add(tool_hooks = [inner_mark]), echo(name = "say")],
    tool_hooks = [outer, no_negative, double_a(match = "add"), tag],
    max_parallel = 2,
    child_timeout_sec = 30,
    history_source = "orchestrator",
    model = "passthrough",
)]
pub struct Calc;

mod agent_tests;

mod policy_tests;

mod own_chain_tests;

/// The tool-declared approval rule in a real run: the runner's approvals
/// answer it (sticky answers included), and the model reads the denial.
mod own_chain_run_tests;

/// A child agent listed under its declared name.
mod child_name_tests {
    use hookwire::ToolSet;
    use hookwire::agent::Agent;
    use hookwire::declare::GeneratedAgent;

    /// The child.
    #[hookwire::agent(name = "helper", instruction = "Help.")]
    pub struct Helper;

    /// The parent: lists `Helper` under its declared name.
    #[hookwire::agent(name = "boss", agents = [Helper(name = "helper")])]
    pub struct Boss;

    #[test]
    fn the_child_tool_is_named_after_the_childs_declared_name() {
        assert_eq!(<Helper as GeneratedAgent>::NAME, "helper");
        let names: Vec<String> = Boss::new()
            .tools()
            .definitions()
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(names, ["agent__helper"]);
        assert!(Boss::new().tools().contains("agent__helper"));
    }
}

/// A `#[hook]` or `#[tool]` type lives among the module's types only (a
/// struct with braces): a parameter or a `let` with the function's name in
/// the same module stays a binding. With a unit struct, both would be
/// patterns matching the struct, and this module would not compile.
mod names_stay_free_for_bindings {
    use hookwire::{Decision, ToolArgs, ToolContext};

    /// Tags nothing.
    #[hookwire::hook]
    pub async fn tag(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
        Decision::Continue
    }

    /// Counts bytes.
    #[hookwire::tool]
    pub async fn count(text: String) -> String {
        text.len().to_string()
    }

    pub fn label(tag: &str) -> String {
        let count = tag.len();
        let tag = format!("{tag}:{count}");
        tag
    }
}

#[tokio::test]
async fn bindings_named_like_a_hook_or_a_tool_stay_bindings() {
    use hookwire::Handler;
    use names_stay_free_for_bindings::{count, label, tag};
    assert_eq!(label("ab"), "ab:2");
    let chain = chain!(tag {} => ToolHandler(count {}));
    let mut cx = ToolContext::new("count", hookwire::ToolSource::Function, "c1");
    let result = chain
        .call(&mut cx, ToolArgs::from_json(r#"{"text": "abc"}"#))
        .await
        .unwrap();
    assert_eq!(result.text_content(), "3");
}

mod defaults_tests;
mod typed_output_tests;

/// A child agent's `output` and `on_error`, declared in `agents = [..]`.
mod child_options_tests;
