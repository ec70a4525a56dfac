//! The agents generated from `codegen-cli/tests/cards/good` by
//! `hookwire_codegen::Builder` (see `build.rs`), compiled against the
//! runtime with `missing_docs` and `unsafe_code` denied, and run: the
//! corpus behind "a card set that `cardgen check` accepts compiles". It
//! holds every accepted shape: plain tools and hooks (`tools.rs`,
//! `hooks.rs`), ones marked `#[hookwire::tool]` / `#[hookwire::hook]`
//! (`shop.rs:greet`, `shop_hooks.rs`), a `#[hookwire::args]` struct
//! parameter declared in the tool's file (`shop.rs:order`), dependencies
//! (`shop.md`), child agents (`PMO-orchestrator.md`, `Relay-Desk.md`),
//! lifecycle hooks (`NY-Project-Manager.md`), MCP servers and request hooks
//! (`PMO-orchestrator.md`), request hooks of function tools (`Dial-Desk.md`).

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![deny(missing_docs, unsafe_code)]

mod agents {
    hookwire::include_agents!();
}

/// The lifecycle hooks of the NY card, included once more for its
/// `#[agent]` twin (the card's generated module includes its own copy).
#[path = "../../../../codegen-cli/tests/cards/good/lifecycle.rs"]
mod lifecycle;

/// What the lifecycle hooks of `good/lifecycle.rs` saw, in order (both
/// copies of the file write here).
static LIFECYCLE_LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Called by the hooks of `good/lifecycle.rs`.
pub(crate) fn lifecycle_log(entry: String) {
    LIFECYCLE_LOG.lock().unwrap().push(entry);
}

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use agents::{LondonProjectManager, NyProjectManager, PmoOrchestrator, RelayDesk, TriageDesk};
use hookwire::agent::{Agent, Runner, TraceEvent};
use hookwire::model::BoxFuture;
use hookwire::model::{Message, Model, ModelError, ModelRequest, ModelResponse};
use hookwire::{CallScope, ToolArgs, ToolCall, ToolSet};
use tokio::time::sleep;

mod macro_twin;

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

/// Serialises the tests that run the NY project manager: its lifecycle
/// hooks write to the one `LIFECYCLE_LOG`, which `run_lifecycle` reads.
static NY_RUNS: Mutex<()> = Mutex::new(());

fn ny_runs() -> MutexGuard<'static, ()> {
    NY_RUNS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A message as the model reads it, on one line.
fn line(m: &Message) -> String {
    match m {
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let calls: String = tool_calls
                .iter()
                .map(|c| format!(" -> {}({})", c.name, c.arguments.to_value().unwrap()))
                .collect();
            format!("assistant: {content}{calls}")
        }
        other => format!("{}: {}", other.role(), other.text()),
    }
}

/// One model request, as sent.
#[derive(Debug, Clone)]
struct Sent {
    agent: String,
    system: String,
    messages: Vec<String>,
}

/// The model of the orchestrator tests; its children ask it too (a child
/// card that names no model asks its parent's). An orchestrator's first
/// request is answered with one call of `agent__NY-Project-Manager` per
/// note, a later one (or any request when there are no notes) with
/// `done: <last user text>`. The NY project manager answers
/// `filed: <prompt>`, after sleeping `N` seconds for a prompt `sleep N`.
/// It records every request and how many of NY's ran at once.
struct Desk {
    notes: Vec<String>,
    sent: Mutex<Vec<Sent>>,
    running: AtomicUsize,
    peak: AtomicUsize,
}

impl Desk {
    fn new(notes: impl IntoIterator<Item = String>) -> Arc<Self> {
        Arc::new(Self {
            notes: notes.into_iter().collect(),
            sent: Mutex::default(),
            running: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        })
    }

    fn sent_by(&self, agent: &str) -> Vec<Sent> {
        let sent = self.sent.lock().unwrap();
        sent.iter().filter(|s| s.agent == agent).cloned().collect()
    }
}

impl Model for Desk {
    fn name(&self) -> &str {
        "desk"
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        self.sent.lock().unwrap().push(Sent {
            agent: request.agent.to_owned(),
            system: request.system.to_owned(),
            messages: request.messages.iter().map(line).collect(),
        });
        let prompt = request.last_user_text().unwrap_or("").to_owned();
        if request.agent == "NY-Project-Manager" {
            return Box::pin(async move {
                let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
                self.peak.fetch_max(now, Ordering::SeqCst);
                match prompt.strip_prefix("sleep ") {
                    Some(secs) => sleep(Duration::from_secs(secs.parse().unwrap())).await,
                    None => {
                        for _ in 0..3 {
                            tokio::task::yield_now().await;
                        }
                    }
                }
                self.running.fetch_sub(1, Ordering::SeqCst);
                Ok(ModelResponse::text(format!("filed: {prompt}")))
            });
        }
        let answered = request
            .messages
            .iter()
            .any(|m| matches!(m, Message::Tool { .. }));
        let response = if answered || self.notes.is_empty() {
            ModelResponse::text(format!("done: {prompt}"))
        } else {
            let calls = self
                .notes
                .iter()
                .enumerate()
                .map(|(i, note)| {
                    ToolCall::new(
                        format!("call{i}"),
                        "agent__NY-Project-Manager",
                        ToolArgs::from_value(serde_json::json!({ "message": note })).unwrap(),
                    )
                })
                .collect();
            ModelResponse::tool_calls("", calls)
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

fn runtime(paused: bool) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(paused)
        .build()
        .unwrap()
}

/// The PMO card at work: its instruction is the system prompt its model
/// reads; its request hook fires at request start (and is skipped, as the
/// `time` server is not connected here); its `max_parallel: 128` bounds
/// its calls of a child (300 calls in one step: 128 at once, none dropped,
/// results in call order, through its tool hooks); its `history_source:
/// none` starts each child from nothing but its prompt, and its
/// `history_merge_target: none` keeps the children's messages out of the
/// PMO's history.
#[test]
fn the_pmo_cards_instruction_request_hook_max_parallel_and_history_options_act() {
    let _ny = ny_runs();
    let n = 300;
    let desk = Desk::new((0..n).map(|i| format!("m{i}")));
    let mut runner = Runner::new(PmoOrchestrator::new(), desk.clone());
    let out = runtime(false).block_on(runner.run("status?")).unwrap();
    assert_eq!(out.text, "done: status?");

    let pmo = desk.sent_by("PMO-orchestrator");
    assert_eq!(pmo.len(), 2);
    assert_eq!(
        pmo[0].system,
        "Get project updates from the New York and London project managers and include the current time."
    );
    assert_eq!(pmo[0].messages, ["user: status?"]);
    let injections: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Injection { tool, action } => Some(format!("{tool}: {action:?}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        injections,
        ["time__get_time: Skipped(\"unknown tool `time__get_time`\")"]
    );

    let ny = desk.sent_by("NY-Project-Manager");
    assert_eq!(ny.len(), n);
    assert_eq!(
        desk.peak.load(Ordering::SeqCst),
        128,
        "reached, never exceeded"
    );
    assert!(
        ny.iter()
            .all(|s| s.system == "You are the New York project manager.")
    );
    let mut seen: Vec<Vec<String>> = ny.into_iter().map(|s| s.messages).collect();
    seen.sort();
    let mut expected: Vec<Vec<String>> = (0..n).map(|i| vec![format!("user: m{i}")]).collect();
    expected.sort();
    assert_eq!(seen, expected, "each child saw only its prompt");

    let history = runner.history();
    assert_eq!(history.len(), n + 3, "no child message merged");
    let results: Vec<String> = history[2..2 + n].iter().map(line).collect();
    let expected: Vec<String> = (0..n)
        .map(|i| format!("tool: filed: m{i} [tag] [audit]"))
        .collect();
    assert_eq!(results, expected);
}

/// The PMO card's `child_timeout_sec: 120`: a child that takes 121 s gives
/// an error result naming it, one that takes 119 s answers, and the run
/// goes on to its final answer.
#[test]
fn the_pmo_cards_child_timeout_times_out_a_slow_child() {
    let _ny = ny_runs();
    let desk = Desk::new(["sleep 119".to_owned(), "sleep 121".to_owned()]);
    let mut runner = Runner::new(PmoOrchestrator::new(), desk);
    let out = runtime(true).block_on(runner.run("status?")).unwrap();
    assert_eq!(out.text, "done: status?");
    let results: Vec<String> = runner.history()[2..4].iter().map(line).collect();
    assert_eq!(
        results,
        [
            "tool: filed: sleep 119 [tag] [audit]",
            "tool: agent `agent__NY-Project-Manager` timed out after 120000 ms",
        ]
    );
}

/// The card set's `default: true` agent (PMO-orchestrator) is the
/// generated module's `default()`.
#[test]
fn the_default_card_is_the_modules_default() {
    let agent: PmoOrchestrator = agents::default();
    assert_eq!(agent.config().name, "PMO-orchestrator");
    assert_eq!(agents::DEFAULT_AGENT, "PMO-orchestrator");
}

/// The PMO card's `max_display_instances: 20`: a step that calls its child
/// 25 times shows 20 of the calls in the trace text and how many it hides;
/// the trace keeps all 25. With 20 calls nothing is hidden.
#[test]
fn the_pmo_cards_max_display_instances_limits_the_trace_text() {
    let _ny = ny_runs();
    for (n, hidden) in [(25, Some(5)), (20, None)] {
        let desk = Desk::new((0..n).map(|i| format!("m{i}")));
        let mut runner = Runner::new(PmoOrchestrator::new(), desk);
        let out = runtime(false).block_on(runner.run("status?")).unwrap();
        let calls = |text: &str| {
            text.lines()
                .filter(|l| l.starts_with("step 0 tool agent__NY-Project-Manager (agent)"))
                .count()
        };
        let text = out.trace_text();
        assert_eq!(calls(&text), n.min(20), "{text}");
        let recorded = out
            .trace
            .iter()
            .filter(|e| matches!(e, TraceEvent::ToolCall(call) if &*call.tool == "agent__NY-Project-Manager"))
            .count();
        assert_eq!(recorded, n);
        let summary: Vec<&str> = text.lines().filter(|l| l.contains("not shown")).collect();
        match hidden {
            Some(k) => assert_eq!(
                summary,
                [format!(
                    "step 0 tool agent__NY-Project-Manager: {k} more concurrent instances not shown (max_display_instances: 20)"
                )]
            ),
            None => assert!(summary.is_empty(), "{text}"),
        }
    }
}

/// The Triage-Desk card's `agents:` entry with `output` and `on_error`:
/// the child's answer reaches the desk's model through `triage.rs:receipt`,
/// and the child that times out through `triage.rs:go_on`, as a plain
/// result the model reads and goes on from.
#[test]
fn a_card_childs_output_and_on_error_shape_what_the_parent_reads() {
    let _ny = ny_runs();
    let desk = Desk::new(["sleep 119".to_owned(), "sleep 121".to_owned()]);
    let mut runner = Runner::new(TriageDesk::new(), desk);
    let out = runtime(true).block_on(runner.run("notes")).unwrap();
    assert_eq!(out.text, "done: notes");
    let results: Vec<String> = runner.history()[2..4].iter().map(line).collect();
    assert_eq!(
        results,
        [
            "tool: receipt: filed: sleep 119 (2 messages)",
            "tool: not filed (timed_out), go on",
        ]
    );
    let errors: Vec<bool> = runner.history()[2..4]
        .iter()
        .map(|m| m.tool_result().is_some_and(|r| r.is_error))
        .collect();
    assert_eq!(errors, [false, false]);
}

/// The Relay-Desk card's `history_source: orchestrator`: the child starts
/// from the orchestrator's history; its `history_merge_target:
/// orchestrator`: the child's messages join the orchestrator's history
/// after the step's tool results, and its model reads them.
#[test]
fn the_relay_cards_history_source_and_merge_target_act() {
    let _ny = ny_runs();
    let desk = Desk::new(["note 1".to_owned()]);
    let mut runner = Runner::new(RelayDesk::new(), desk.clone());
    let out = runtime(false).block_on(runner.run("relay this")).unwrap();
    assert_eq!(out.text, "done: note 1");
    let call = r#"assistant:  -> agent__NY-Project-Manager({"message":"note 1"})"#;
    let ny = desk.sent_by("NY-Project-Manager");
    assert_eq!(ny.len(), 1);
    // Up to the answer whose calls are running: their results do not
    // exist yet, and APIs refuse a call without its result.
    assert_eq!(ny[0].messages, ["user: relay this", "user: note 1"]);
    let relay = desk.sent_by("Relay-Desk");
    assert_eq!(
        relay[0].system,
        "Relay every note to the New York project manager."
    );
    let merged = [
        "user: relay this",
        call,
        "tool: filed: note 1",
        "user: note 1",
        "assistant: filed: note 1",
    ];
    assert_eq!(relay[1].messages, merged, "what the orchestrator read next");
    let history: Vec<String> = runner.history().iter().map(line).collect();
    assert_eq!(history[..5], merged);
    assert_eq!(history[5..], ["assistant: done: note 1"]);
}

/// The London card's `use_history: false`: each run starts from an empty
/// history (the second request holds only the second prompt), and its
/// instruction is the system prompt.
#[test]
fn the_london_cards_use_history_false_clears_the_history_between_runs() {
    let desk = Desk::new([]);
    let mut runner = Runner::new(LondonProjectManager::new(), desk.clone());
    let rt = runtime(false);
    rt.block_on(runner.run("first")).unwrap();
    rt.block_on(runner.run("second")).unwrap();
    let sent = desk.sent_by("London-Project-Manager");
    let messages: Vec<&[String]> = sent.iter().map(|s| &s.messages[..]).collect();
    assert_eq!(messages, [["user: first"], ["user: second"]]);
    assert_eq!(
        sent[1].system,
        "You are the London project manager; review the economics."
    );
    let history: Vec<String> = runner.history().iter().map(line).collect();
    assert_eq!(history, ["user: second", "assistant: done: second"]);
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
    assert_eq!(r.text_content(), "3 apple in stock [stamped]");
    assert_eq!(
        run(market.tools(), "stock", r#"{"item": "apple"}"#).text_content(),
        "40 apple in stock [stamped]"
    );
    // `Dep<ShopDeps>`: the dependencies themselves.
    assert_eq!(
        run(corner.tools(), "about", "{}").text_content(),
        "Corner: 2 kinds [stamped]"
    );
    // A struct parameter declared in the tool's own file (`Line`).
    assert_eq!(
        run(
            corner.tools(),
            "order",
            r#"{"lines": [{"item": "apple", "count": 2}, {"item": "pear", "count": 1}]}"#
        )
        .text_content(),
        "2 apple: ok, 1 pear: short [stamped]"
    );
    // A tool marked `#[hookwire::tool]` in its file, whose `greeting`
    // has a default: left out, it applies; the schema shows it.
    assert_eq!(
        run(corner.tools(), "greet", r#"{"name": "Ann"}"#).text_content(),
        "hello Ann [stamped]"
    );
    assert_eq!(
        run(
            corner.tools(),
            "greet",
            r#"{"name": "Ann", "greeting": "hi"}"#
        )
        .text_content(),
        "hi Ann [stamped]"
    );
    let greet = corner.tools().definitions();
    let greet = greet.iter().find(|d| d.name == "greet").unwrap();
    assert_eq!(greet.input_schema["required"], serde_json::json!(["name"]));
    assert_eq!(
        greet.input_schema["properties"]["greeting"],
        serde_json::json!({"type": "string", "default": "hello"})
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
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent { tool, result, .. } = &**call;
                Some(format!("{tool}: {}", result.text_content()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            "stock: 7 pear in stock [stamped]",
            "about: Corner: 1 kinds [stamped]"
        ]
    );
}

#[test]
fn a_card_agents_approval_asks_the_runners_asker_and_the_trace_says_who_decided() {
    use hookwire::agent::{Runner, TraceEvent};
    use hookwire::approval::{Answer, DecidedBy, FnAsker};
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([
        Turn::call(
            "refund",
            serde_json::json!({"customer": "ann", "amount": 20}),
        )
        .and_call(
            "refund",
            serde_json::json!({"customer": "bob", "amount": 900}),
        ),
        Turn::text("done"),
    ]);
    // The approver reads the arguments by name.
    let asker = FnAsker::new(|req| match req.get("amount").and_then(|a| a.as_u64()) {
        Some(amount) if amount <= 50 => Answer::Approve,
        _ => Answer::Deny("refunds over 50 need a manager".into()),
    });
    let agent = agents::Shop::new(&shop_deps("Corner", &[]));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let out = rt
        .block_on(Runner::new(agent, model).with_asker(asker).run("refunds"))
        .unwrap();
    type Gates = Vec<(String, bool, DecidedBy)>;
    let calls: Vec<(String, String, Gates)> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    decision,
                    result,
                    approvals,
                    ..
                } = &**call;
                Some((
                    decision.to_string(),
                    result.text_content(),
                    approvals
                        .iter()
                        .map(|n| (n.gate.clone(), n.approved, n.by))
                        .collect(),
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                "allowed".to_owned(),
                // `flag_risky` (`match: "meta:risk=high"`) runs on the
                // refund, whose `#[tool]` declares `meta(risk = "high")`,
                // inside `stamp`; no other tool of the card is flagged.
                "refunded 20 to ann [risky] [stamped]".to_owned(),
                vec![("needs_approval".to_owned(), true, DecidedBy::Asker)]
            ),
            (
                "denied".to_owned(),
                "tool call denied by `needs_approval`: refunds over 50 need a manager".to_owned(),
                vec![("needs_approval".to_owned(), false, DecidedBy::Asker)]
            ),
        ]
    );
}

/// What the model read for each tool call, in call order.
fn tool_results(history: &[Message]) -> Vec<(String, String, bool)> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Tool { name, result, .. } => {
                Some((name.to_string(), result.text_content(), result.is_error))
            }
            _ => None,
        })
        .collect()
}

/// The Guard-Desk card's lifecycle hooks fail, each by its entry's
/// `on_failure` and `timeout_ms`: `Hang` on `add_one` times out in
/// `pre_tool_use` and, closed by default there, denies the call naming
/// itself; `Hang` on `project_status` is open, so the call runs with the
/// model's arguments (not the hook's rewrite); `Explode` panics in
/// `post_tool_use` and, closed, turns the result into the error the model
/// reads. `AnswerCheck`, matched to `step:final`, sees only the final answer.
#[test]
fn the_guard_desks_lifecycle_hooks_fail_by_their_policy_and_timeout() {
    use hookwire::model::{ScriptedModel, Turn};
    runtime(true).block_on(async {
        let model = ScriptedModel::from_turns([
            Turn::call("add_one", serde_json::json!({"x": 1}))
                .and_call("project_status", serde_json::json!({"project": "bridge"})),
            Turn::text("done"),
            Turn::text("checked"),
        ]);
        let mut runner = Runner::new(agents::GuardDesk::new(), model);
        let out = runner.run("go").await.unwrap();
        // `AnswerCheck` (`match: "step:final"`) saw the final answer and
        // asked once more; it saw no tool call (it would have denied it).
        assert_eq!(out.text, "checked");
        assert!(
            runner.history().iter().any(|m| m.text() == "check the answer"),
            "{:?}",
            runner.history()
        );
        assert_eq!(
            tool_results(runner.history()),
            [
                (
                    "add_one".to_owned(),
                    "tool call denied by `hang`: hook `hang` failed: pre_tool_use timed out after 50 ms"
                        .to_owned(),
                    true
                ),
                (
                    "project_status".to_owned(),
                    "hook `explode` failed: post_tool_use panicked: exploded".to_owned(),
                    true
                ),
            ]
        );
        // `project_status` ran, with the model's project: the open `Hang`'s
        // rewrite was undone.
        let received = out.trace.iter().find_map(|e| match e {
            TraceEvent::ToolCall(call) if &*call.tool == "project_status" => {
                let hookwire::agent::ToolCallEvent { received, .. } = &**call;
                Some(received.clone())
            }
            _ => None,
        });
        assert_eq!(received, Some(None), "the tool got what the model sent");
    });
}

/// A card lists tools marked `#[hookwire::tool(instruction = .., available
/// = .., approval_metadata = ..)]` where they are defined, and gives tools
/// rules of its own (`function_tools` entries with `available` /
/// `instruction`): the instructions join the system prompt in the tools'
/// order, a tool is offered only while it is available, a call of one that
/// is not is refused, and the approver sees the metadata.
#[test]
fn a_card_tools_instruction_availability_and_approval_metadata_act() {
    use crate::seeing::{Offered, Seeing};
    use hookwire::approval::{Answer, FnAsker};
    use hookwire::model::{ScriptedModel, Turn};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let noted = Arc::new(Mutex::new(Vec::new()));
    let seen = Offered::default();
    let base = "Answer questions about the shop's stock.";
    let about = "Say where the shop is: 1 Main St.";
    let greet = "Greet customers by name.";
    let order = "Step 1: confirm every order line.";
    let all = ["stock", "about", "order", "greet", "refund"];
    let names = |tools: &[&str]| tools.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
    for prompt in ["hi, a refund please", "we are closed, a refund please"] {
        seen.lock().unwrap().clear();
        let model = Seeing(
            ScriptedModel::from_turns([
                Turn::call("greet", serde_json::json!({"name": "ann"}))
                    .and_call(
                        "refund",
                        serde_json::json!({"customer": "ann", "amount": 90}),
                    )
                    .and_call("about", serde_json::json!({})),
                Turn::text("done"),
            ]),
            seen.clone(),
        );
        let metadata = noted.clone();
        let asker = FnAsker::new(move |req| {
            metadata.lock().unwrap().push(req.metadata().cloned());
            Answer::Approve
        });
        let agent = agents::Shop::new(&shop_deps("Corner", &[]));
        let mut runner = Runner::new(agent, model).with_asker(asker);
        rt.block_on(runner.run(prompt)).unwrap();
        let results = crate::availability::result_texts(runner.history());
        let seen_now = seen.lock().unwrap().clone();
        let refused = |tool: &str| {
            format!(
                "tool call denied by `available`: tool `{tool}` is not available in this step, \
                 so it was not offered and cannot be called"
            )
        };
        let closed = prompt.contains("closed");
        if closed {
            let open = names(&["stock", "order", "refund"]);
            assert_eq!(
                seen_now,
                [
                    (base.to_owned(), open.clone()),
                    (format!("{base}\n\n{order}"), open)
                ]
            );
            assert_eq!(results[0], refused("greet"));
            assert_eq!(results[2], refused("about"));
        } else {
            assert_eq!(
                seen_now,
                [
                    (format!("{base}\n\n{about}\n\n{greet}"), names(&all)),
                    (
                        format!("{base}\n\n{about}\n\n{order}\n\n{greet}"),
                        names(&all)
                    )
                ]
            );
            assert_eq!(results[0], "hello ann [stamped]");
            assert_eq!(results[2], "Corner: 0 kinds [stamped]");
        }
        assert_eq!(results[1], "refunded 90 to ann [risky] [stamped]");
    }
    assert_eq!(
        *noted.lock().unwrap(),
        [
            Some(serde_json::json!({"large": true})),
            Some(serde_json::json!({"large": true}))
        ]
    );
}

/// A run of the shop card paused on the refund's approval, exported and
/// imported into a new runner: its next step offers the tools and the
/// prompt the card's rules give for that step (step 1: the order note),
/// asked again from the imported history (still "closed" or not).
#[test]
fn a_card_tools_rules_give_the_same_offer_after_an_export_and_an_import() {
    use crate::seeing::{Offered, Seeing};
    use hookwire::agent::RunStatus;
    use hookwire::approval::{ApprovalDecision, DeferAll};
    use hookwire::model::{ScriptedModel, Turn};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let base = "Answer questions about the shop's stock.";
    let names = |tools: &[&str]| tools.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
    for prompt in ["hi, a refund please", "we are closed, a refund please"] {
        let seen = Offered::default();
        let model = Seeing(
            ScriptedModel::from_turns([Turn::call(
                "refund",
                serde_json::json!({"customer": "ann", "amount": 90}),
            )]),
            seen.clone(),
        );
        let agent = agents::Shop::new(&shop_deps("Corner", &[]));
        let mut first = Runner::new(agent, model).with_asker(DeferAll);
        let out = rt.block_on(first.run(prompt)).unwrap();
        let RunStatus::Paused { pending } = out.status else {
            panic!("{:?}", out.status)
        };
        let state = serde_json::to_string(&first.export_state()).unwrap();
        drop(first);

        let seen = Offered::default();
        let model = Seeing(
            ScriptedModel::from_turns([Turn::text("done")]),
            seen.clone(),
        );
        let agent = agents::Shop::new(&shop_deps("Corner", &[]));
        let mut resumed = Runner::new(agent, model).with_asker(DeferAll);
        resumed
            .import_state(serde_json::from_str(&state).unwrap())
            .unwrap();
        resumed
            .approvals()
            .resolve(&pending[0].id(), ApprovalDecision::Approve)
            .unwrap();
        assert_eq!(rt.block_on(resumed.resume()).unwrap().text, "done");
        let order = "Step 1: confirm every order line.";
        let expected = if prompt.contains("closed") {
            (
                format!("{base}\n\n{order}"),
                names(&["stock", "order", "refund"]),
            )
        } else {
            (
                format!(
                    "{base}\n\nSay where the shop is: 1 Main St.\n\n{order}\n\nGreet customers by name."
                ),
                names(&["stock", "about", "order", "greet", "refund"]),
            )
        };
        assert_eq!(*seen.lock().unwrap(), [expected], "{prompt}");
    }
}

/// The PMO card's `servers` entry (`{name: time, available:
/// tools.rs:clock_on, instruction: ..}`), connected to the real
/// `mcp-server-time`: while the rule says yes, the server's tools are
/// offered and its instruction follows the card's; once someone said "no
/// clock", neither, and a call of the tool is refused.
#[test]
fn the_pmo_cards_server_entry_offers_the_time_tools_with_their_instruction() {
    use crate::seeing::{Offered, Seeing};
    use hookwire::mcp::{McpAgent, McpConfig, ServerSpec};
    use hookwire::model::{ScriptedModel, Turn};
    let config = McpConfig::new()
        .with_server(
            "time",
            ServerSpec::stdio(crate::dynamic_hooks::mcp_support::time_server())
                .args(["--local-timezone", "UTC"]),
        )
        .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let base = "Get project updates from the New York and London project managers and include the current time.";
    for prompt in ["status?", "status? no clock today"] {
        let agent = rt
            .block_on(McpAgent::connect(PmoOrchestrator::new(), &config))
            .unwrap();
        let seen = Offered::default();
        let model = Seeing(
            ScriptedModel::from_turns([
                Turn::call(
                    "time__get_current_time",
                    serde_json::json!({"timezone": "UTC"}),
                ),
                Turn::text("done"),
            ]),
            seen.clone(),
        );
        let mut runner = Runner::new(agent, model);
        rt.block_on(runner.run(prompt)).unwrap();
        let requests = seen.lock().unwrap().clone();
        let result = crate::availability::result_texts(runner.history())
            .pop()
            .unwrap();
        for (system, tools) in &requests {
            let offered = tools.iter().any(|t| t == "time__get_current_time");
            if prompt.contains("no clock") {
                assert_eq!(system, base);
                assert!(!offered, "{tools:?}");
            } else {
                assert_eq!(*system, format!("{base}\n\nGive every time in UTC."));
                assert!(offered, "{tools:?}");
            }
        }
        if prompt.contains("no clock") {
            assert_eq!(
                result,
                "tool call denied by `available`: tool `time__get_current_time` is not available in \
                 this step, so it was not offered and cannot be called"
            );
        } else {
            assert!(result.contains("\"timezone\": \"UTC\""), "{result}");
        }
        rt.block_on(runner.agent().servers().shutdown());
    }
}

/// The Dial-Desk card's request-start injections, run on three requests
/// with a clock set by hand: each calls its function tool with the card's
/// `arguments` and through the card's tool hook (`[tag]`); `frequency:
/// always` (`profile`) injects at every request; `append_if_changed`
/// (`weather`) injects again only when the result changed (an unchanged
/// one replaces its pair in place); the TTL of 10 minutes (`news`) reuses
/// its result before expiry, without a call, and calls again after it.
#[test]
fn the_dial_cards_injections_call_their_tools_with_the_cards_arguments_by_frequency_and_ttl() {
    use hookwire::agent::inject::ManualClock;
    let deps = agents::dial_desk::deps::DialDeps::default();
    "sunny".clone_into(&mut deps.forecast.lock().unwrap());
    let clock = Arc::new(ManualClock::new(1_000_000));
    let desk = Desk::new(Vec::<String>::new());
    let mut runner =
        Runner::new(agents::DialDesk::new(&deps), desk.clone()).with_clock(clock.clone());
    let rt = runtime(false);
    let mut calls_per_request = Vec::new();
    for (prompt, forecast, minutes) in [("1", "sunny", 0), ("2", "sunny", 9), ("3", "rain", 2)] {
        clock.advance(minutes * 60);
        forecast.clone_into(&mut deps.forecast.lock().unwrap());
        let out = rt.block_on(runner.run(prompt)).unwrap();
        assert_eq!(out.text, format!("done: {prompt}"));
        calls_per_request.push(std::mem::take(&mut *deps.calls.lock().unwrap()));
    }
    assert_eq!(
        calls_per_request,
        [
            vec![
                "profile ada [\"name\", \"city\"]",
                "weather Paris",
                "news rust 2"
            ],
            // 9 minutes on: the news is fresh, nothing calls it.
            vec!["profile ada [\"name\", \"city\"]", "weather Paris"],
            // 11 minutes after the first news: expired, called again.
            vec![
                "profile ada [\"name\", \"city\"]",
                "weather Paris",
                "news rust 2"
            ],
        ]
    );
    let seen: Vec<Vec<String>> = desk
        .sent_by("Dial-Desk")
        .into_iter()
        .map(|s| s.messages)
        .collect();
    let profile = [
        "assistant:  -> profile({\"user\":\"ada\",\"fields\":[\"name\",\"city\"]})",
        "tool: ada: name, city [tag]",
    ];
    let weather = |forecast: &str| {
        [
            "assistant:  -> weather({\"city\":\"Paris\"})".to_owned(),
            format!("tool: Paris: {forecast} [tag]"),
        ]
    };
    let news = [
        "assistant:  -> news({\"topic\":\"rust\",\"limit\":2})",
        "tool: 2 headlines about rust [tag]",
    ];
    let mut first: Vec<String> = vec!["user: 1".into()];
    first.extend(profile.map(String::from));
    first.extend(weather("sunny"));
    first.extend(news.map(String::from));
    assert_eq!(seen[0], first, "request 1");
    // Request 2: a second profile pair; the unchanged weather replaced in
    // place (still one pair); no second news pair.
    let mut second = first.clone();
    second.push("assistant: done: 1".into());
    second.push("user: 2".into());
    second.extend(profile.map(String::from));
    assert_eq!(seen[1], second, "request 2");
    // Request 3: the changed weather and the expired news are appended.
    let mut third = second.clone();
    third.push("assistant: done: 2".into());
    third.push("user: 3".into());
    third.extend(profile.map(String::from));
    third.extend(weather("rain"));
    third.extend(news.map(String::from));
    assert_eq!(seen[2], third, "request 3");
    assert_eq!(seen.len(), 3);
}

/// A card with `runtime_tools: true`: a tool registered at run time runs
/// through its agent-level hooks, `source:runtime` selecting it and not the
/// card's function tool.
#[test]
fn a_card_with_runtime_tools_hooks_the_registered_tools_by_source() {
    use hookwire::agent::WithTools;
    use hookwire::{FnTool, NoArgs, Router, ToolSource};
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

/// The typed answer of the Verdict-Desk card (`output_type:`).
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
pub struct Verdict {
    /// Whether the change may ship.
    pub ship: bool,
    /// Why.
    pub reason: String,
}

/// A card with `output_type:`: `Runner::run_output` asks the model for the
/// type's schema (the scripted model through the final-answer tool) and
/// returns the answer as the type.
#[test]
fn a_card_with_an_output_type_answers_run_output_with_the_type() {
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([Turn::call(
        "final_result",
        serde_json::json!({"ship": true, "reason": "tests pass"}),
    )]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut runner = Runner::new(agents::VerdictDesk::new(), model);
    let out = rt.block_on(runner.run_output("May #12 ship?")).unwrap();
    assert_eq!(
        out.value,
        Verdict {
            ship: true,
            reason: "tests pass".into()
        }
    );
    let spec = runner.agent().config().output.clone().unwrap();
    assert_eq!(spec.name, "Verdict");
}

/// A card with `output_schema:`: every run asks for it and checks the
/// answer against it; a mismatch (a score above the `maximum`) is sent back
/// once, then the answer is taken.
#[test]
fn a_card_with_an_output_schema_checks_every_run() {
    use hookwire::model::{ScriptedModel, Turn};
    let model = ScriptedModel::from_turns([
        Turn::call(
            "final_result",
            serde_json::json!({"score": 11, "why": "great"}),
        ),
        Turn::call(
            "final_result",
            serde_json::json!({"score": 9, "why": "great"}),
        ),
    ]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut runner = Runner::new(agents::ScoreDesk::new(), model);
    let out = rt.block_on(runner.run("Score #12")).unwrap();
    assert_eq!(
        out.structured,
        Some(serde_json::json!({"score": 9, "why": "great"}))
    );
    let retries: Vec<String> = out
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::OutputRetry { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        retries,
        ["at `score`: 11 is greater than the maximum of 10"]
    );
}
