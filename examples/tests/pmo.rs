//! The PMO example end to end: both declarations (the `#[agent]` macro and
//! the AgentCards compiled by `cardgen`) run on the scripted model against
//! the real `mcp-server-time` (installed by `.ci/run`), and produce the same
//! trace, with the audit hook's effects visible in what the model read.

#![allow(clippy::unwrap_used)]

use hookwire::agent::{RunStatus, TraceEvent};
use hookwire_examples::pmo::{self, Form};

async fn run(form: Form) -> hookwire::agent::RunOutput {
    let mcp = pmo::mcp_config().unwrap();
    let model = pmo::scripted_model().unwrap();
    pmo::run(form, model, &mcp).await.unwrap()
}

fn tool_results(
    output: &hookwire::agent::RunOutput,
) -> Vec<(String, String, Option<String>, String)> {
    output
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall {
                tool,
                decision,
                hook,
                result,
                ..
            } => Some((
                tool.clone(),
                decision.clone(),
                hook.clone(),
                result.text_content(),
            )),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_declarations_run_the_seed_example_and_print_the_same_trace() {
    assert!(
        std::path::Path::new(&pmo::time_server_command()).is_file(),
        "mcp-server-time is not installed: run .ci/run (it installs it under target/mcp/)"
    );
    let by_macro = run(Form::Macro).await;
    let by_cards = run(Form::Cards).await;
    assert!(matches!(by_macro.status, RunStatus::Completed));
    assert_eq!(
        pmo::normalized_trace(&by_macro),
        pmo::normalized_trace(&by_cards)
    );

    let results = tool_results(&by_macro);
    let names: Vec<&str> = results.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "time__get_current_time",
            "add_one",
            "shell",
            "agent__NY-Project-Manager",
            "agent__NY-Project-Manager",
            "agent__NY-Project-Manager",
            "agent__London-Project-Manager",
        ],
        "results come back in call order"
    );
    // The real time server answered for the requested zone, through the audit hook.
    let time = &results[0];
    assert_eq!(time.1, "allowed");
    assert!(
        time.3.contains("\"timezone\": \"America/New_York\""),
        "{}",
        time.3
    );
    assert!(time.3.ends_with(" [audit]"), "{}", time.3);
    // add_one's x was clamped from 50 to 10 before the call.
    assert_eq!(results[1].3, "11 [audit]");
    // The shell tool was blocked instead of run, and the model read why.
    assert_eq!(results[2].1, "denied");
    assert_eq!(results[2].2.as_deref(), Some("audit_hook"));
    assert_eq!(
        results[2].3,
        "tool call denied by `audit_hook`: the shell tool is blocked by the audit policy"
    );
    // Each child agent ran on the parent's (scripted) model and was audited too.
    assert_eq!(
        results[3].3,
        "Anthropic: model eval harness on track for Friday. [audit]"
    );
    assert_eq!(
        results[6].3,
        "Economics review: budget within 2% of plan. [audit]"
    );
    assert!(by_macro.text.starts_with("NEW YORK:"), "{}", by_macro.text);
}

/// The console trace prints live from the run's event stream: line for
/// line, what `trace_text` renders from the finished run's trace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_console_trace_is_the_runs_trace_text() {
    use hookwire::agent::TraceLines;
    let mcp = pmo::mcp_config().unwrap();
    let model = pmo::scripted_model().unwrap();
    let mut live = String::new();
    let mut lines = None;
    let mut children = 0;
    let out = pmo::run_live(Form::Cards, model, &mcp, |event, shown| {
        if !event.is_root() {
            children += 1;
        }
        if let (true, Some(trace)) = (event.is_root(), event.trace()) {
            live.push_str(
                &lines
                    .get_or_insert_with(|| TraceLines::new(shown))
                    .line(trace),
            );
        }
    })
    .await
    .unwrap();
    assert_eq!(live, out.trace_text());
    assert!(live.starts_with("user: Get project updates"), "{live}");
    assert!(children > 0, "the child agents' events arrive too");
}

/// The main command of the README prints both traces and says they are
/// the same.
#[test]
fn the_pmo_binary_prints_both_traces_live_and_compares_them() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pmo"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("== PMO-orchestrator, declared with #[agent] macro ==\nuser: "),
        "{text}"
    );
    assert!(
        text.ends_with("== the two declarations produced the same trace ==\n"),
        "{text}"
    );
}
