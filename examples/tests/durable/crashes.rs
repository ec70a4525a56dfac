//! SIGKILLed and restarted: no tool runs twice, a replica dies mid-run, a
//! call's timeout and idempotency key survive the restart.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_after_the_third_tool_replays_and_no_tool_runs_twice() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = five_step_script(dir.path(), 5);
    let port = free_port();
    let spec = ServiceSpec {
        port,
        ledger: &ledger,
        script: Some(&script),
        delay_ms: 400,
        reuse_port: false,
        timeout_ms: None,
    };
    let mut service = Service::start(&spec);
    let client = server.registered_client(port).await;
    let invocation = client.start("crash-1", "check P1..P5", None).await.unwrap();

    // The 4th call starts only once the 3rd's result is recorded: kill the
    // service (SIGKILL) while the 4th runs, then start a new process.
    wait_ledger(&ledger, "start project_status P4");
    service.proc.kill();
    assert_eq!(count(&ledger_counts(&ledger), "done project_status P4"), 0);
    let _service = Service::start(&spec);

    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    assert_eq!(output.text, "all done");
    assert_each_step_once(&ledger, 4);
    // The 4th call, interrupted, ran again to completion in the new process.
    assert_eq!(count(&ledger_counts(&ledger), "start project_status P4"), 2);
    // What the model read: all five results, in order, each once.
    let state = client
        .state(&server.admin, "crash-1")
        .await
        .unwrap()
        .unwrap();
    let results: Vec<String> = state
        .history
        .iter()
        .filter_map(|m| match m {
            Message::Tool { result, .. } => Some(result.text_content()),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        (1..=5)
            .map(|i| format!("P{i}: on track [audited]"))
            .collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_serve_one_agent_and_one_dies_mid_run() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = five_step_script(dir.path(), 5);
    let port = free_port();
    let spec = ServiceSpec {
        port,
        ledger: &ledger,
        script: Some(&script),
        delay_ms: 300,
        reuse_port: true,
        timeout_ms: None,
    };
    // Two processes on one address (SO_REUSEPORT), registered once.
    let mut replicas = [Service::start(&spec), Service::start(&spec)];
    let client = server.registered_client(port).await;
    let invocation = client
        .start("replica-1", "check P1..P5", None)
        .await
        .unwrap();

    // Kill whichever replica is running the 3rd call.
    let busy = wait_ledger(&ledger, "start project_status P3");
    let (dead, alive) = if replicas[0].proc.pid() == busy {
        (0, 1)
    } else {
        (1, 0)
    };
    assert_eq!(replicas[dead].proc.pid(), busy);
    replicas[dead].proc.kill();

    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    assert_each_step_once(&ledger, 3);
    // The rest of the run was served by the replica that lives.
    let survivor = replicas[alive].proc.pid();
    assert!(
        ledger_lines(&ledger)
            .iter()
            .any(|(l, pid)| l == "done project_status P5" && *pid == survivor)
    );
}

/// A run of one call (`project_status P1`, whose tool takes `delay_ms`,
/// within `timeout_ms`) whose service is SIGKILLed `kill_after` ms into
/// the call and started again `down_for` ms later: the call's decision and
/// result, and the ledger's counts.
async fn timed_call_across_a_crash(
    session: &str,
    delay_ms: u64,
    timeout_ms: u64,
    kill_after: u64,
    down_for: u64,
) -> (String, String, std::collections::BTreeMap<String, usize>) {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = five_step_script(dir.path(), 1);
    let port = free_port();
    let spec = ServiceSpec {
        port,
        ledger: &ledger,
        script: Some(&script),
        delay_ms,
        reuse_port: false,
        timeout_ms: Some(timeout_ms),
    };
    let mut service = Service::start(&spec);
    let client = server.registered_client(port).await;
    let invocation = client.start(session, "check P1", None).await.unwrap();
    wait_ledger(&ledger, "start project_status P1");
    tokio::time::sleep(Duration::from_millis(kill_after)).await;
    service.proc.kill();
    tokio::time::sleep(Duration::from_millis(down_for)).await;
    let _service = Service::start(&spec);

    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    let (decision, result) = output
        .trace
        .iter()
        .find_map(|e| match e {
            TraceEvent::ToolCall(call) if &*call.id == "c1" => {
                let hookwire::agent::ToolCallEvent {
                    decision, result, ..
                } = &**call;
                Some((decision.to_string(), result.text_content()))
            }
            _ => None,
        })
        .unwrap();
    (decision, result, ledger_counts(&ledger))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_run_again_after_a_restart_has_what_is_left_of_its_timeout() {
    // Each call may take 3 s; the tool takes 2 s. The call dies half a
    // second in; the service is back 1.5 s later.
    let (_, result, counts) = timed_call_across_a_crash("timer-1", 2000, 3000, 500, 1500).await;
    // Run again, the call had about 1 s of its 3 s left, not a fresh 3 s:
    // it timed out, and the tool never completed.
    assert!(result.contains("timed out after 3000 ms"), "{result}");
    assert_eq!(count(&counts, "start project_status P1"), 2, "{counts:#?}");
    assert_eq!(count(&counts, "done project_status P1"), 0, "{counts:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_survives_a_crash_and_no_other_call_has_it() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = five_step_script(dir.path(), 2);
    let port = free_port();
    let spec = ServiceSpec {
        port,
        ledger: &ledger,
        script: Some(&script),
        // Long enough that the kill below lands while P2 still runs, even
        // on a loaded machine (its result, once sent, is not run again).
        delay_ms: 3000,
        reuse_port: false,
        timeout_ms: None,
    };
    let mut service = Service::start(&spec);
    let client = server.registered_client(port).await;
    let invocation = client.start("key-1", "check P1, P2", None).await.unwrap();
    // The 2nd call dies mid-call (SIGKILL) and runs again in a new process.
    wait_ledger(&ledger, "start project_status P2");
    service.proc.kill();
    let _service = Service::start(&spec);
    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);

    let keys = ledger_keys(&ledger, "durable-PMO");
    let whats: Vec<&str> = keys.iter().map(|(w, _)| w.as_str()).collect();
    assert_eq!(
        whats,
        [
            "project_status P1",
            "project_status P2",
            "project_status P2"
        ],
        "{keys:?}"
    );
    // The call run again saw the key it saw before the crash; the other
    // call has another.
    assert_eq!(keys[1].1, keys[2].1, "{keys:?}");
    assert_ne!(keys[0].1, keys[1].1, "{keys:?}");
    assert_eq!(keys[0].1.len(), 64);

    // Another session with the same script (the same call ids): other keys.
    client.run("key-2", "check P1, P2").await.unwrap();
    let all = ledger_keys(&ledger, "durable-PMO");
    assert_eq!(all.len(), 5, "{all:?}");
    for (what, key) in &all[3..] {
        assert!(
            keys.iter().all(|(_, k)| k != key),
            "{what} of session key-2 has a key of session key-1: {all:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_timeout_ran_out_while_the_service_was_down_does_not_start_again() {
    // Each call may take 1.5 s; the tool takes 5 s. The service dies 300 ms
    // into the call and is back 2.5 s later: the call's deadline passed
    // while it was down.
    let (decision, result, counts) =
        timed_call_across_a_crash("expired-1", 5000, 1500, 300, 2500).await;
    assert_eq!(decision, "error");
    assert!(result.contains("timed out after 1500 ms"), "{result}");
    // Neither its hook nor its tool started again after the restart.
    assert_eq!(count(&counts, "hook project_status c1"), 1, "{counts:#?}");
    assert_eq!(count(&counts, "start project_status P1"), 1, "{counts:#?}");
    assert_eq!(count(&counts, "done project_status P1"), 0, "{counts:#?}");
    // The model read the timeout and answered once more.
    assert_eq!(count(&counts, "model 1"), 1, "{counts:#?}");
}
