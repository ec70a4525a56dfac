//! Past the limits: an outage longer than the retries pauses the run, a
//! huge tool result ends its call.

use super::*;

/// `GET` of `path` on the admin API, as JSON.
fn admin_get(admin: &str, path: &str) -> hookwire::serde_json::Value {
    let out = std::process::Command::new("curl")
        .args(["-sf", &format!("{admin}{path}")])
        .output()
        .unwrap();
    hookwire::serde_json::from_slice(&out.stdout).unwrap()
}

/// Waits until the admin API reports `invocation` as `status`; the last
/// status seen otherwise.
async fn wait_status(
    client: &DurableClient,
    admin: &str,
    invocation: &str,
    status: &str,
) -> Option<String> {
    let mut seen = None;
    for _ in 0..300 {
        seen = client.status(admin, invocation).await.unwrap();
        if seen.as_deref() == Some(status) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_longer_than_the_retries_pauses_the_run_and_a_resume_finishes_it() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = five_step_script(dir.path(), 2);
    let port = free_port();
    let spec = spec(port, &ledger, &script, 500);
    // A tiny policy: 3 attempts, 100 ms apart, then pause.
    let retry = [
        ("DURABLE_PMO_RETRY_MS", "100"),
        ("DURABLE_PMO_RETRY_ATTEMPTS", "3"),
    ];
    let mut service = Service::start_with(&spec, &retry);
    let client = server.registered_client(port).await;
    let invocation = client
        .start("outage-1", "check P1, P2", None)
        .await
        .unwrap();

    // The service dies during the 2nd call and stays down for seconds:
    // the attempts run out and Restate pauses the run.
    wait_ledger(&ledger, "start project_status P2");
    service.proc.kill();
    let status = wait_status(&client, &server.admin, &invocation, "paused").await;
    assert_eq!(status.as_deref(), Some("paused"));
    // The policy is the one the service was given, not the default.
    let policy = admin_get(&server.admin, "/services/AgentSession");
    assert_eq!(
        policy["retry_policy"],
        hookwire::serde_json::json!({
            "initial_interval": "100ms",
            "exponentiation_factor": 2.0,
            "max_attempts": 3,
            "max_interval": "100ms",
            "on_max_attempts": "Pause",
        })
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    // Back up, the service does not get the paused run by itself.
    let _service = Service::start_with(&spec, &retry);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let status = client.status(&server.admin, &invocation).await.unwrap();
    assert_eq!(status.as_deref(), Some("paused"));
    assert_eq!(count(&ledger_counts(&ledger), "start project_status P2"), 1);

    // The documented command (PATCH /invocations/<id>/resume) runs it
    // again from its journal: the run finishes, nothing recorded ran again.
    client.resume(&server.admin, &invocation).await.unwrap();
    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    assert_eq!(output.text, "all done");
    let counts = ledger_counts(&ledger);
    for line in [
        "start project_status P1",
        "done project_status P1",
        "done project_status P2",
        "model 0",
        "model 1",
        "model 2",
    ] {
        assert_eq!(count(&counts, line), 1, "{line}: {counts:#?}");
    }
    // The interrupted call, whose result was never recorded, ran again.
    assert_eq!(count(&counts, "start project_status P2"), 2, "{counts:#?}");
    // An id that is not Restate's is refused before any request.
    let e = client.resume(&server.admin, "inv/../x").await.unwrap_err();
    assert!(
        e.to_string()
            .starts_with("invalid invocation id \"inv/../x\""),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_tool_result_ends_its_call_with_an_error_and_large_values_are_saved_once() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = dir.path().join("export.yaml");
    // The 1st run exports 20 MiB (too much to keep), the 2nd 10 KiB.
    std::fs::write(
        &script,
        "turns:\n  - tool_calls:\n      - {id: big, name: export_data, arguments: {project: P1, bytes: 20971520}}\n  - text: exported\n  - tool_calls:\n      - {id: small, name: export_data, arguments: {project: P2, bytes: 10240}}\n  - text: exported again\n",
    )
    .unwrap();
    let port = free_port();
    let _service = Service::start(&spec(port, &ledger, &script, 0));
    let client = server.registered_client(port).await;

    // The call ends with a clear error, once; the run finishes.
    let first = client.start("size-1", "export P1", None).await.unwrap();
    let output = finish(&client, &first).await;
    assert_eq!(output.status, RunStatus::Completed);
    assert_eq!(output.text, "exported");
    let result = output.trace.iter().find_map(|e| match e {
        TraceEvent::ToolCall(call) if &*call.id == "big" => Some(call.result.clone()),
        _ => None,
    });
    let result = result.unwrap();
    assert!(result.is_error);
    // The size is the serialized result's: the 20 MiB and its JSON.
    let text = result.text_content();
    let (size, advice) = text
        .strip_prefix("the result of `export_data` is ")
        .and_then(|rest| rest.split_once(" bytes; "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(size.parse::<usize>().unwrap() > 20 << 20, "{text}");
    assert_eq!(
        advice,
        format!(
            "a durable session keeps tool results of at most {} bytes (its journal and state \
             hold each one): return less, or store the data elsewhere and return a reference to it",
            hookwire::durable::MAX_RESULT_BYTES
        )
    );
    assert_eq!(count(&ledger_counts(&ledger), "done export_data P1"), 1);

    // The session takes its next message; a prompt and a result over the
    // preview size are saved once: in full in the history, as a preview
    // in the trace.
    let prompt = "p".repeat(100_000);
    let output = client.run("size-1", &prompt).await.unwrap();
    assert_eq!(output.text, "exported again");
    let state = client
        .state(&server.admin, "size-1")
        .await
        .unwrap()
        .unwrap();
    let kept = |text: &str| {
        state.history.iter().any(|m| match m {
            Message::User { content } => content == text,
            Message::Tool { result, .. } => result.text_content() == text,
            _ => false,
        })
    };
    assert!(kept(&prompt));
    assert!(kept(&format!("{} [audited]", "x".repeat(10240))));
    let prompt_in_trace = state.trace.iter().find_map(|e| match e {
        TraceEvent::Prompt { text } => Some(text.clone()),
        _ => None,
    });
    assert_eq!(
        prompt_in_trace.unwrap(),
        format!(
            "{}… [100000 bytes in all; the history has them in full]",
            "p".repeat(1024)
        )
    );
    let result_in_trace = state.trace.iter().find_map(|e| match e {
        TraceEvent::ToolCall(call) if &*call.id == "small" => Some(call.result.text_content()),
        _ => None,
    });
    let result_in_trace = result_in_trace.unwrap();
    assert!(
        result_in_trace.ends_with("x… [10250 bytes in all; the history has them in full]"),
        "{result_in_trace}"
    );
    let saved = hookwire::serde_json::to_string(&state).unwrap().len();
    assert!(saved < 150_000, "the saved state is {saved} bytes");
}
