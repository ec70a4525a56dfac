//! The PMO and NY cards against their `#[agent]` twins: one emitter, so the
//! same tools, schemas, hook order and lifecycle hooks.

use super::*;

/// The PMO orchestrator again, declared with `#[agent]` over the same
/// functions (as `#[tool]`/`#[hook]`), to show that the card and the macro
/// go through one emitter: same tools, schemas and hook order. (Children
/// are agent types in `#[agent]`, names in cards, so `agents` is left out.)
pub(super) mod twin {
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
        hooks = [crate::cards_e2e::lifecycle::Recorder, crate::cards_e2e::lifecycle::Deny(match = "project_status")],
    )]
    pub struct NyMacro;

    /// The PMO orchestrator, declared in Rust.
    #[hookwire::agent(
        name = "PMO-orchestrator",
        instruction = "Get project updates from the New York and London project managers and include the current time.",
        default = true,
        servers = ["time"],
        tools(time = ["get_time", "get_current_time"]),
        function_tools = [add_one],
        agents = [
            crate::cards_e2e::agents::NyProjectManager(name = "NY-Project-Manager"),
            crate::cards_e2e::agents::LondonProjectManager(name = "London-Project-Manager"),
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
fn run_lifecycle<A: Agent + Send + Sync + 'static>(agent: A) -> (Vec<String>, Vec<String>) {
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
    let _ny = ny_runs();
    LIFECYCLE_LOG.lock().unwrap().clear();
    let out = rt
        .block_on(Runner::new(agent, model).run("status?"))
        .unwrap();
    assert_eq!(out.text, "done");
    let calls = out
        .trace
        .iter()
        .filter_map(|e| {
            let TraceEvent::ToolCall(call) = e else {
                return None;
            };
            let hookwire::agent::ToolCallEvent {
                tool,
                decision,
                result,
                ..
            } = &**call;
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
