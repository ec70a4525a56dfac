//! The calls of one step: run at once under the journal, one journal entry
//! per call, and after a crash only the calls not recorded run again.

use super::*;

/// A script of one step calling `project_status` for `P1`..`P4` at once,
/// then a final answer.
fn four_calls_script(dir: &std::path::Path) -> std::path::PathBuf {
    let mut yaml = String::from("turns:\n  - tool_calls:\n");
    for i in 1..=4 {
        yaml.push_str(&format!(
            "      - {{id: c{i}, name: project_status, arguments: {{project: P{i}}}}}\n"
        ));
    }
    yaml.push_str("  - text: all done\n");
    let path = dir.join("four.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

/// The tool results the model read, in the history's order.
async fn tool_results(client: &DurableClient, admin: &str, session: &str) -> Vec<String> {
    let state = client.state(admin, session).await.unwrap().unwrap();
    state
        .history
        .iter()
        .filter_map(|m| match m {
            Message::Tool { result, .. } => Some(result.text_content()),
            _ => None,
        })
        .collect()
}

fn four_results() -> Vec<String> {
    (1..=4)
        .map(|i| format!("P{i}: on track [audited]"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calls_of_one_step_run_at_once_under_the_journal() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = four_calls_script(dir.path());
    let port = free_port();
    let _service = Service::start(&spec(port, &ledger, &script, 100));
    let client = server.registered_client(port).await;
    let invocation = client
        .start("parallel-1", "check P1..P4", None)
        .await
        .unwrap();
    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    assert_eq!(output.text, "all done");

    // Every call started before any finished: the four 100 ms tools
    // overlapped (one at a time, each would finish before the next starts).
    let lines: Vec<String> = ledger_lines(&ledger).into_iter().map(|l| l.0).collect();
    let first_done = lines.iter().position(|l| l.starts_with("done")).unwrap();
    for i in 1..=4 {
        let start = lines
            .iter()
            .position(|l| *l == format!("start project_status P{i}"))
            .unwrap();
        assert!(start < first_done, "{lines:#?}");
    }
    // Each ran once; the model read the results in call order.
    let counts = ledger_counts(&ledger);
    for i in 1..=4 {
        assert_eq!(count(&counts, &format!("done project_status P{i}")), 1);
    }
    assert_eq!(
        tool_results(&client, &server.admin, "parallel-1").await,
        four_results()
    );
    let trace: Vec<&str> = output
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::ToolCall(call) => Some(&*call.id),
            _ => None,
        })
        .collect();
    assert_eq!(trace, ["c1", "c2", "c3", "c4"]);
}

/// The names of the invocation's journaled `ctx.run`s whose result is
/// recorded (a run command, and a notification with its completion id).
fn recorded_runs(admin: &str, invocation: &str) -> Vec<String> {
    use hookwire::serde_json::Value;
    let sql =
        format!("SELECT entry_lite_json FROM sys_journal WHERE id = '{invocation}' ORDER BY index");
    let body = hookwire::serde_json::json!({ "query": sql }).to_string();
    let out = std::process::Command::new("curl")
        .args(["-sf", &format!("{admin}/query")])
        .args(["-H", "content-type: application/json"])
        .args(["-H", "accept: application/json"])
        .args(["-d", &body])
        .output()
        .unwrap();
    let rows: Value = hookwire::serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let entries: Vec<Value> = rows["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| hookwire::serde_json::from_str(r["entry_lite_json"].as_str()?).ok())
        .collect();
    let done: Vec<&Value> = entries
        .iter()
        .filter(|e| e["Notification"]["result"] == "Success")
        .map(|e| &e["Notification"]["id"]["CompletionId"])
        .collect();
    entries
        .iter()
        .filter_map(|e| {
            let run = &e["Command"]["Run"];
            done.contains(&&run["completion_id"])
                .then(|| run["name"].as_str().map(str::to_owned))?
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_step_runs_again_only_the_parallel_calls_not_recorded() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = four_calls_script(dir.path());
    let port = free_port();
    let spec = spec(port, &ledger, &script, 100);
    // P4 takes 1 s, the others 100 ms.
    let slow = [("DURABLE_PMO_SLOW", "P4")];
    let mut service = Service::start_with(&spec, &slow);
    let client = server.registered_client(port).await;
    let invocation = client
        .start("parallel-2", "check P1..P4", None)
        .await
        .unwrap();

    // Kill the service once the three fast calls' results are recorded,
    // while P4 runs.
    let want: Vec<String> = (1..=3)
        .map(|i| format!("tool project_status c{i}"))
        .collect();
    let mut recorded = Vec::new();
    for _ in 0..200 {
        recorded = recorded_runs(&server.admin, &invocation);
        if want.iter().all(|w| recorded.contains(w)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(want.iter().all(|w| recorded.contains(w)), "{recorded:?}");
    assert_eq!(count(&ledger_counts(&ledger), "done project_status P4"), 0);
    service.proc.kill();
    let _service = Service::start_with(&spec, &slow);

    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    let counts = ledger_counts(&ledger);
    for i in 1..=3 {
        for what in ["start", "done"] {
            let line = format!("{what} project_status P{i}");
            assert_eq!(count(&counts, &line), 1, "{line} ran again: {counts:#?}");
        }
    }
    // P4, interrupted before its result was recorded, ran again.
    assert_eq!(count(&counts, "start project_status P4"), 2, "{counts:#?}");
    assert_eq!(count(&counts, "done project_status P4"), 1, "{counts:#?}");
    assert_eq!(count(&counts, "model 0"), 1, "{counts:#?}");
    assert_eq!(
        tool_results(&client, &server.admin, "parallel-2").await,
        four_results()
    );
}

/// What a step journals (#27): its model answer, then one entry per call,
/// even when every call has a timeout (its start is the answer's recorded
/// time, not an entry of its own); the calls' results are sent without
/// waiting for each acknowledgement, and all are recorded, in call order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_journals_its_answer_and_one_entry_per_call() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = dir.path().join("one-then-four.yaml");
    let mut yaml = String::from(
        "turns:\n  - tool_calls:\n      - {id: c0, name: project_status, arguments: {project: P0}}\n  - tool_calls:\n",
    );
    for i in 1..=4 {
        yaml.push_str(&format!(
            "      - {{id: c{i}, name: project_status, arguments: {{project: P{i}}}}}\n"
        ));
    }
    yaml.push_str("  - text: all done\n");
    std::fs::write(&script, yaml).unwrap();
    let port = free_port();
    let spec = ServiceSpec {
        timeout_ms: Some(60_000),
        ..spec(port, &ledger, &script, 0)
    };
    let _service = Service::start(&spec);
    let client = server.registered_client(port).await;
    let invocation = client
        .start("entries-1", "check P0..P4", None)
        .await
        .unwrap();
    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    assert_eq!(
        recorded_runs(&server.admin, &invocation),
        [
            "model 0",
            "tool project_status c0",
            "model 1",
            "tool project_status c1",
            "tool project_status c2",
            "tool project_status c3",
            "tool project_status c4",
            "model 2",
        ]
    );
    let mut results = vec!["P0: on track [audited]".to_owned()];
    results.extend(four_results());
    assert_eq!(
        tool_results(&client, &server.admin, "entries-1").await,
        results
    );
}
