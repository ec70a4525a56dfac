//! The PMO example end to end: both declarations (the `#[agent]` macro and
//! the AgentCards compiled by `cardgen`) run on the scripted model against
//! the real `mcp-server-time` (installed by `.ci/run`), and produce the same
//! trace, with the audit hook's effects visible in what the model read.

#![allow(clippy::unwrap_used)]

use hookwire::agent::{RunStatus, TraceEvent};
use hookwire_examples::pmo::{self, Form};

#[path = "../../runtime/tests/suite/mock_http.rs"]
mod mock_http;

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
            TraceEvent::ToolCall(call) => {
                let hookwire::agent::ToolCallEvent {
                    tool,
                    decision,
                    hook,
                    result,
                    ..
                } = &**call;
                Some((
                    tool.to_string(),
                    decision.to_string(),
                    hook.clone(),
                    result.text_content(),
                ))
            }
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

/// `--model <provider>:<model>`: the binary runs on a native provider (here
/// a local server speaking the Anthropic Messages stream), with the key and
/// base URL from the provider's variables; a wrong provider or a missing
/// key is one error before any run.
#[test]
fn the_binary_takes_a_provider_model_string() {
    use mock_http::{Answer, serve};
    use serde_json::json;
    // The binary prints its trace live from the run's event stream, so the
    // provider's request is streamed too: the Messages API's events.
    let answer = Answer::named_events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 900, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Nothing to do today."}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 6}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let (url, seen) = serve(vec![answer]);
    let pmo = |args: &[&str], envs: &[(&str, &str)]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_pmo"));
        command
            .args(args)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("HOOKWIRE_MODEL");
        command.envs(envs.iter().copied());
        command.output().unwrap()
    };
    let out = pmo(
        &["--form", "macro", "--model", "anthropic:claude-test"],
        &[
            ("ANTHROPIC_API_KEY", "sk-test"),
            ("ANTHROPIC_BASE_URL", &url),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Nothing to do today."), "{stdout}");
    let request = seen
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap();
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.headers["x-api-key"], "sk-test");
    assert_eq!(request.body["model"], "claude-test");
    assert_eq!(request.body["stream"], true);
    assert!(
        request.body["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );

    let out = pmo(&["--model", "antropic:claude-test"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with(
            "error: unknown model provider `antropic` in `antropic:claude-test` (did you mean \
             `anthropic`?); known: anthropic, "
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = pmo(&["--model", "anthropic:claude-test"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: model `anthropic:claude-test` needs an API key: set ANTHROPIC_API_KEY\n"
    );
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

/// The main command of README.md (the block that says it is run by this test)
/// prints both traces and says they are the same.
#[test]
fn the_pmo_binary_prints_both_traces_live_and_compares_them() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let block = readme
        .split_once("```sh\n# run by examples/tests/pmo.rs\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .unwrap()
        .0;
    assert_eq!(
        block, ".ci/install-mcp && cargo run -p hookwire-examples --bin pmo\n",
        "README.md's main command is the one this test runs (the MCP server is installed by .ci/run)"
    );
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

/// `pmo --typed` on the scripted model: both declarations answer with the
/// same typed `PmoSummary`, through the final-answer tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typed_answer_comes_back_as_a_pmo_summary() {
    let mcp = pmo::mcp_config().unwrap();
    let mut values = Vec::new();
    for form in [Form::Macro, Form::Cards] {
        let model = pmo::scripted_model().unwrap();
        let typed = pmo::run_live_typed(form, model, &mcp, |_, _| {})
            .await
            .unwrap();
        assert_eq!(typed.value.updates.len(), 4);
        assert_eq!(typed.value.updates[3].city, "London");
        values.push(typed.value);
    }
    assert_eq!(values[0], values[1]);
}

/// Done when of #23 (and #36: Anthropic's structured outputs): `pmo
/// --model anthropic:<model> --typed` against a local server speaking the
/// Messages stream (events as the streaming documentation shows them for a
/// text block): the model is asked for `PmoSummary`'s schema natively
/// (`output_config.format`), answers with its JSON text, and the binary
/// prints the typed answer.
#[test]
fn the_binary_gets_a_typed_answer_from_anthropic_natively() {
    use mock_http::{Answer, serve};
    use serde_json::json;
    let input = r#"{"updates": [{"city": "New York", "topic": "Anthropic", "status": "On track."}], "notes": []}"#;
    let (head, tail) = input.split_at(30);
    let answer = Answer::named_events(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_014p7gG3wDgGV9EUtLvnow3U", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 472, "output_tokens": 2}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": head}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": tail}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 89}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let (url, seen) = serve(vec![answer]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pmo"))
        .args([
            "--form",
            "macro",
            "--model",
            "anthropic:claude-test",
            "--typed",
        ])
        .env_remove("HOOKWIRE_MODEL")
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("ANTHROPIC_BASE_URL", &url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let typed = stdout
        .split_once("== the typed answer (PmoSummary) ==\n")
        .map(|(_, rest)| rest.trim())
        .unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(typed).unwrap();
    assert_eq!(
        value,
        serde_json::from_str::<serde_json::Value>(input).unwrap()
    );
    let request = seen
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap();
    let tools = request.body["tools"].as_array().unwrap();
    assert!(
        tools.iter().all(|t| t["name"] != "final_result"),
        "no final-answer tool: {tools:#?}"
    );
    let format = &request.body["output_config"]["format"];
    assert_eq!(format["type"], "json_schema", "{}", request.body);
    assert_eq!(format["schema"]["required"], json!(["updates", "notes"]));
    assert_eq!(
        format["schema"]["properties"]["updates"]["items"]["required"],
        json!(["city", "topic", "status"])
    );
}
