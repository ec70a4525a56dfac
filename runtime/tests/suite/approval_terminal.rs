//! The terminal approver under a real terminal: the test runs itself in a
//! tmux pane, waits for each prompt on the screen, and types the answers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_common::test_agent;
use hookwire::agent::Runner;
use hookwire::approval::{Approvals, NeedsApproval, TerminalApprover};
use hookwire::model::{Message, ScriptedModel, Turn};
use hookwire::{FnTool, Router, Tool, ToolHandler, ToolResult, ToolSource, chain};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Path {
    path: String,
}

const OUT_VAR: &str = "HOOKWIRE_TERMINAL_TEST_OUT";

/// The part that runs inside the terminal.
#[tokio::test]
#[ignore = "run by terminal_prompts_answer_and_stick inside tmux"]
async fn terminal_child() {
    let Ok(out_path) = std::env::var(OUT_VAR) else {
        panic!("{OUT_VAR} is not set: this test runs inside tmux, started by another test");
    };
    let ran: Arc<Mutex<Vec<String>>> = Arc::default();
    let r = ran.clone();
    let rm = FnTool::new("rm", "Removes.", move |p: Path| {
        let r = r.clone();
        async move {
            r.lock().unwrap().push(p.path.clone());
            format!("removed {}", p.path)
        }
    });
    let tools = Router::new().route(
        rm.definition(),
        ToolSource::Function,
        chain!(NeedsApproval::new(true) => ToolHandler(rm)),
    );
    let model = ScriptedModel::from_turns([
        Turn::call("rm", json!({"path": "/one"})),   // answered "n"
        Turn::call("rm", json!({"path": "/two"})),   // answered "maybe" then "y"
        Turn::call("rm", json!({"path": "/three"})), // answered "always"
        Turn::call("rm", json!({"path": "/four"})),  // not asked: sticky
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(test_agent("term", tools), model)
        .with_approvals(Approvals::new(TerminalApprover::new()));
    runner.run("remove things").await.unwrap();
    let results: Vec<String> = runner
        .history()
        .iter()
        .filter_map(Message::tool_result)
        .map(ToolResult::text_content)
        .collect();
    let report = json!({"ran": *ran.lock().unwrap(), "results": results});
    std::fs::write(out_path, report.to_string()).unwrap();
}

fn pane(session: &str) -> String {
    let out = Command::new("tmux")
        .args(["capture-pane", "-p", "-J", "-S", "-2000", "-t", session])
        .output()
        .expect("tmux capture-pane");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn wait_for_prompts(session: &str, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while pane(session).matches("Approve? [y]es").count() < n {
        assert!(
            Instant::now() < deadline,
            "prompt {n} never appeared:\n{}",
            pane(session)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn send(session: &str, keys: &str) {
    let ok = Command::new("tmux")
        .args(["send-keys", "-t", session, "-l", keys])
        .status()
        .expect("tmux send-keys")
        .success();
    assert!(ok);
    let ok = Command::new("tmux")
        .args(["send-keys", "-t", session, "Enter"])
        .status()
        .expect("tmux send-keys")
        .success();
    assert!(ok);
}

#[test]
fn terminal_prompts_answer_and_stick() {
    let dir = std::env::temp_dir().join(format!("hookwire-term-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.json");
    let exe = std::env::current_exe().unwrap();
    let session = format!("hookwire-approval-{}", std::process::id());
    let command = format!(
        "{OUT_VAR}={} {} --ignored --exact approval_terminal::terminal_child --nocapture --test-threads=1; sleep 30",
        out.display(),
        exe.display()
    );
    let started = Command::new("tmux")
        .args([
            "new-session",
            "-d",
            "-x",
            "200",
            "-y",
            "50",
            "-s",
            &session,
            &command,
        ])
        .status()
        .expect("tmux must be installed to test the terminal approver");
    assert!(started.success());
    let result = std::panic::catch_unwind(|| {
        wait_for_prompts(&session, 1);
        assert!(pane(&session).contains("wants to call `rm` with {\"path\":\"/one\"}"));
        send(&session, "n");
        wait_for_prompts(&session, 2);
        send(&session, "maybe");
        wait_for_prompts(&session, 3); // asked again after a bad answer
        send(&session, "y");
        wait_for_prompts(&session, 4);
        send(&session, "always");
        let deadline = Instant::now() + Duration::from_secs(120);
        while !out.exists() {
            assert!(
                Instant::now() < deadline,
                "the child never finished:\n{}",
                pane(&session)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(100));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(report["ran"], json!(["/two", "/three", "/four"]));
        assert_eq!(
            report["results"][0],
            "tool call denied by `needs_approval`: denied at the terminal"
        );
        assert_eq!(report["results"][3], "removed /four");
        // Four prompts in all: "/four" was approved by the sticky "always".
        assert_eq!(pane(&session).matches("Approve? [y]es").count(), 4);
    });
    let _ = Command::new("tmux")
        .args(["kill-session", "-t", &session])
        .status();
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}
