//! The agents generated from `codegen-cli/tests/cards/good` by
//! `hookwire_codegen::Builder` (see `build.rs`), compiled against the
//! runtime with `missing_docs` and `unsafe_code` denied, and run.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![deny(missing_docs, unsafe_code)]

mod agents {
    hookwire::include_agents!();
}

/// The lifecycle hooks of the NY card, included once more for its
/// `#[agent]` twin (the card's generated module includes its own copy).
#[path = "../../codegen-cli/tests/cards/good/lifecycle.rs"]
mod lifecycle;

/// What the lifecycle hooks of `good/lifecycle.rs` saw, in order (both
/// copies of the file write here).
static LIFECYCLE_LOG: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Called by the hooks of `good/lifecycle.rs`.
fn lifecycle_log(entry: String) {
    LIFECYCLE_LOG.lock().unwrap().push(entry);
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

#[test]
fn card_fields_reach_the_agent_config() {
    let c = PmoOrchestrator::new();
    let c = c.config();
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
    assert_eq!(hook.toolset_name.as_deref(), Some("time"));
    assert_eq!(hook.tool_name, "get_time");
    assert_eq!(hook.arguments["user_id"], "current");
    assert_eq!(hook.frequency, Frequency::Always);

    let ny = NyProjectManager::new();
    let ny = ny.config();
    assert_eq!(ny.instruction, "You are the New York project manager.");
    assert_eq!(
        ny.description.as_deref(),
        Some("Reports on New York projects.")
    );

    let london = LondonProjectManager::new();
    let london = london.config();
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

/// The PMO orchestrator again, declared with `#[agent]` over the same
/// functions (as `#[tool]`/`#[hook]`), to show that the card and the macro
/// go through one emitter: same tools, schemas and hook order. (Children
/// are agent types in `#[agent]`, names in cards, so `agents` is left out.)
mod twin {
    use hookwire::{Decision, Next, Outcome, ToolArgs, ToolContext};

    /// Adds one to `x`.
    #[hookwire::tool]
    pub fn add_one(x: i64) -> hookwire::Json<i64> {
        hookwire::Json(x + 1)
    }

    /// Tags every result with `[audit]`.
    #[hookwire::hook]
    pub async fn audit_hook(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
        let mut outcome = next.run(cx, args).await;
        if let Ok(result) = &mut outcome {
            result.append_text(" [audit]");
        }
        outcome
    }

    /// Clamps `x` to at most 10.
    #[hookwire::hook]
    pub async fn clamp(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
        if args
            .get("x")
            .and_then(|v| v.as_i64())
            .is_some_and(|x| x > 10)
        {
            let _ = args.insert("x", 10.into());
        }
        Decision::Continue
    }

    /// Tags every result with `[tag]`.
    #[hookwire::hook]
    pub async fn tag(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
        let mut outcome = next.run(cx, args).await;
        if let Ok(result) = &mut outcome {
            result.append_text(" [tag]");
        }
        outcome
    }

    /// The status of a project.
    #[hookwire::tool]
    pub async fn project_status(project: String) -> String {
        format!("{project}: on track")
    }

    /// The NY project manager, declared in Rust, with the same lifecycle
    /// hooks as its card (`hooks: [lifecycle.rs:Recorder, {hook:
    /// lifecycle.rs:Deny, match: project_status}]`).
    #[hookwire::agent(
        name = "NY-Project-Manager",
        instruction = "You are the New York project manager.",
        description = "Reports on New York projects.",
        function_tools = [add_one, project_status],
        hooks = [crate::lifecycle::Recorder, crate::lifecycle::Deny(match = "project_status")],
    )]
    pub struct NyMacro;

    /// The PMO orchestrator, declared in Rust.
    #[hookwire::agent(
        name = "PMO-orchestrator",
        instruction = "Get project updates from the New York and London project managers and include the current time.",
        default = true,
        servers = ["time"],
        tools(time = ["get_time"]),
        function_tools = [add_one],
        agents = [
            crate::agents::NyProjectManager(name = "NY-Project-Manager"),
            crate::agents::LondonProjectManager(name = "London-Project-Manager"),
        ],
        tool_hooks = [audit_hook, clamp(match = "add_*", on_failure = "open", timeout_ms = 500), tag],
        max_parallel = 128,
        child_timeout_sec = 120,
        max_display_instances = 20,
    )]
    pub struct PmoMacro;
}

#[test]
fn the_card_and_the_macro_give_the_same_agent() {
    let card = PmoOrchestrator::new().tools().definitions();
    let macro_ = twin::PmoMacro::new().tools().definitions();
    assert_eq!(card, macro_, "same names, descriptions and schemas");
    for args in [r#"{"x": 50}"#, r#"{"x": 2}"#, r#"{"x": "ten"}"#, "[]"] {
        let a = run(PmoOrchestrator::new().tools(), "add_one", args);
        let b = run(twin::PmoMacro::new().tools(), "add_one", args);
        assert_eq!(a, b, "same outcome (and so the same hook order) for {args}");
    }
    let (a, b) = (PmoOrchestrator::new(), twin::PmoMacro::new());
    let (a, b) = (a.config(), b.config());
    assert_eq!(
        (&a.name, &a.instruction, a.default, &a.servers, &a.mcp_tools),
        (&b.name, &b.instruction, b.default, &b.servers, &b.mcp_tools)
    );
    assert_eq!(
        (a.max_parallel, a.child_timeout, a.max_display_instances),
        (b.max_parallel, b.child_timeout, b.max_display_instances)
    );
}

/// Runs `agent` on a script that calls both tools (one per step, so the
/// order of events is fixed) and returns what its lifecycle hooks saw and
/// what the model was told about each call.
fn run_lifecycle<A: AgentDecl + Send + Sync + 'static>(agent: A) -> (Vec<String>, Vec<String>) {
    use hookwire::agent::{Runner, TraceEvent};
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([
        Turn::call("add_one", serde_json::json!({"x": 1})),
        Turn::call("project_status", serde_json::json!({"project": "Hudson"})),
        Turn::text("done"),
    ]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    LIFECYCLE_LOG.lock().unwrap().clear();
    let out = rt
        .block_on(Runner::new(agent, model).run("status?"))
        .unwrap();
    assert_eq!(out.text, "done");
    let calls = out
        .trace
        .iter()
        .filter_map(|e| {
            let TraceEvent::ToolCall {
                tool,
                decision,
                result,
                ..
            } = e
            else {
                return None;
            };
            Some(format!("{tool} {decision}: {}", result.text_content()))
        })
        .collect();
    (std::mem::take(&mut *LIFECYCLE_LOG.lock().unwrap()), calls)
}

#[test]
fn card_lifecycle_hooks_fire_like_the_macros_in_declared_order() {
    let (card_log, card_calls) = run_lifecycle(NyProjectManager::new());
    let (macro_log, macro_calls) = run_lifecycle(twin::NyMacro::new());
    // Declared order: the recorder, then the matched deny (only for
    // `project_status`), at every event of the run.
    assert_eq!(
        card_log,
        [
            "recorder: execution_start NY-Project-Manager",
            "recorder: user_prompt_submit status?",
            "recorder: step_start 0",
            "recorder: pre_tool_use add_one",
            "recorder: post_tool_use add_one",
            "recorder: step_end 0",
            "recorder: step_start 1",
            "recorder: pre_tool_use project_status",
            "deny: pre_tool_use project_status",
            "recorder: post_tool_failure project_status",
            "recorder: step_end 1",
            "recorder: step_start 2",
            "recorder: stop done",
            "recorder: step_end 2",
            "recorder: execution_end completed",
        ]
    );
    assert_eq!(card_log, macro_log, "the same events in the same order");
    // What the model reads names the denying hook by its Rust path, which
    // differs (the card's copy of the file is another module): compare
    // the rest.
    let short = |calls: Vec<String>| -> Vec<String> {
        calls
            .into_iter()
            .map(|c| match c.split_once("denied by `") {
                Some((head, rest)) => {
                    let (path, tail) = rest.split_once('`').unwrap();
                    format!(
                        "{head}denied by `{}`{tail}",
                        path.rsplit("::").next().unwrap()
                    )
                }
                None => c,
            })
            .collect()
    };
    let card_calls = short(card_calls);
    assert_eq!(
        card_calls,
        [
            "add_one allowed: 2",
            "project_status denied: tool call denied by `Deny`: project_status is not allowed here"
        ]
    );
    assert_eq!(card_calls, short(macro_calls));
}

/// The dependencies of the shop card, built as a user builds them: through
/// the card's module, which re-exports its `deps:` file as `deps`.
fn shop_deps(name: &str, stock: &[(&str, u32)]) -> agents::shop::deps::ShopDeps {
    use agents::shop::deps::{Inventory, ShopDeps};
    let items = stock.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
    ShopDeps {
        name: name.to_owned(),
        inventory: Inventory(std::sync::Arc::new(items)),
    }
}

#[test]
fn a_card_with_deps_is_built_from_them_and_its_tools_get_their_part() {
    let corner = agents::Shop::new(&shop_deps("Corner", &[("apple", 3), ("pear", 0)]));
    let market = agents::Shop::new(&shop_deps("Market", &[("apple", 40)]));
    // `Dep<Inventory>`: the part `impl FromRef<ShopDeps> for Inventory`
    // takes; each agent value has its own.
    let r = run(corner.tools(), "stock", r#"{"item": "apple"}"#);
    assert!(!r.is_error, "{}", r.text_content());
    assert_eq!(r.text_content(), "3 apple in stock");
    assert_eq!(
        run(market.tools(), "stock", r#"{"item": "apple"}"#).text_content(),
        "40 apple in stock"
    );
    // `Dep<ShopDeps>`: the dependencies themselves.
    assert_eq!(
        run(corner.tools(), "about", "{}").text_content(),
        "Corner: 2 kinds"
    );
    // A dependency is not an argument: the model sees `item` only.
    let defs = corner.tools().definitions();
    assert_eq!(defs[0].name, "stock");
    assert_eq!(
        defs[0].input_schema["required"],
        serde_json::json!(["item"])
    );
    assert_eq!(
        defs[0].input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["item"]
    );
    assert!(
        defs[1].input_schema["properties"]
            .as_object()
            .is_none_or(|p| p.is_empty())
    );
}

#[test]
fn a_runner_runs_a_card_agent_built_from_its_deps() {
    use hookwire::agent::{Runner, TraceEvent};
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([
        Turn::call("stock", serde_json::json!({"item": "pear"})),
        Turn::call("about", serde_json::json!({})),
        Turn::text("done"),
    ]);
    let agent = agents::Shop::new(&shop_deps("Corner", &[("pear", 7)]));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let out = rt
        .block_on(Runner::new(agent, model).run("pears?"))
        .unwrap();
    assert_eq!(out.text, "done");
    let results: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall { tool, result, .. } => {
                Some(format!("{tool}: {}", result.text_content()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        ["stock: 7 pear in stock", "about: Corner: 1 kinds"]
    );
}
