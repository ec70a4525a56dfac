//! Durable sessions against the real Restate server (`restate-server`
//! 1.7.12, installed by `.ci/install-restate`) and the `durable_pmo`
//! service as a separate process: SIGKILLed mid-run and restarted, run as
//! two replicas, paused for approval across a restart. Every side effect is
//! counted in a ledger file outside the processes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod durable_support;

use std::io::{Read, Write};
use std::time::Duration;

use durable_support::{
    Server, Service, ServiceSpec, five_step_script, free_port, ledger_counts, ledger_lines,
    wait_ledger,
};
use hookwire::agent::{RunStatus, TraceEvent};
use hookwire::approval::PendingApproval;
use hookwire::durable::{ClientError, DurableClient, Verdict, check_session_id};
use hookwire::model::Message;

fn count(counts: &std::collections::BTreeMap<String, usize>, line: &str) -> usize {
    counts.get(line).copied().unwrap_or(0)
}

/// The 5 project checks each ran exactly once, with their hooks, and the
/// model requests before the crash were not made again.
fn assert_each_step_once(ledger: &std::path::Path, crashed_in: usize) {
    let counts = ledger_counts(ledger);
    for i in 1..=5 {
        assert_eq!(
            count(&counts, &format!("done project_status P{i}")),
            1,
            "P{i} must complete exactly once: {counts:#?}"
        );
    }
    for i in 1..crashed_in {
        for line in [
            format!("start project_status P{i}"),
            format!("hook project_status c{i}"),
            format!("model {}", i - 1),
        ] {
            assert_eq!(count(&counts, &line), 1, "{line} ran again: {counts:#?}");
        }
    }
    assert_eq!(count(&counts, "model 5"), 1, "{counts:#?}");
}

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
    let state = client.state("crash-1").await.unwrap().unwrap();
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
async fn an_approval_waits_across_a_restart_and_a_denial_never_runs() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = dir.path().join("pay.yaml");
    std::fs::write(
        &script,
        "turns:\n  - tool_calls:\n      - {id: pay_ok, name: pay_vendor, arguments: {vendor: Acme, amount: 10}}\n      - {id: pay_bad, name: pay_vendor, arguments: {vendor: Mallory, amount: 99999}}\n  - text: paid\n",
    )
    .unwrap();
    let port = free_port();
    let spec = ServiceSpec {
        port,
        ledger: &ledger,
        script: Some(&script),
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    };
    let mut service = Service::start(&spec);
    let client = server.registered_client(port).await;
    let invocation = client
        .start("pay-1", "pay the vendors", None)
        .await
        .unwrap();

    // Both calls wait: nothing was paid.
    let pending = wait_pending(&client, "pay-1", 2).await;
    let calls: Vec<&str> = pending.iter().map(|p| p.tool_use_id()).collect();
    assert_eq!(calls, ["pay_ok", "pay_bad"]);
    // A decision names the call's whole identity: its id is a digest, not
    // the model's call id.
    let (pay_ok, pay_bad) = (pending[0].id(), pending[1].id());
    assert_eq!(pending[0].path(), "durable-PMO / pay_vendor");
    assert!(
        !ledger_counts(&ledger)
            .keys()
            .any(|l| l.contains("pay_vendor"))
    );

    // The service dies and comes back; the decisions come through the
    // ingress from this process.
    service.proc.kill();
    let _service = Service::start(&spec);

    // An id that does not wait: refused, nothing changes.
    let unknown = client
        .decide("pay-1", "pay_ok", Verdict::Approve)
        .await
        .unwrap_err();
    assert_eq!(unknown.status(), Some(404), "{unknown}");
    assert!(
        unknown.to_string().contains("no call `pay_ok` waits"),
        "{unknown}"
    );

    let decided = client
        .decide("pay-1", &pay_ok, Verdict::Approve)
        .await
        .unwrap();
    assert_eq!(decided.pending.tool(), "pay_vendor");
    // A second decision for the same call: refused, the first one holds.
    let twice = client
        .decide(
            "pay-1",
            &pay_ok,
            Verdict::Deny {
                reason: Some("changed my mind".into()),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(twice.status(), Some(409), "{twice}");
    assert!(
        twice.to_string().contains("already decided (approve)"),
        "{twice}"
    );
    client
        .decide(
            "pay-1",
            &pay_bad,
            Verdict::Deny {
                reason: Some("not a vendor of ours".into()),
            },
        )
        .await
        .unwrap();

    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    let counts = ledger_counts(&ledger);
    assert_eq!(count(&counts, "done pay_vendor Acme"), 1, "{counts:#?}");
    assert!(
        !counts
            .keys()
            .any(|l| l.contains("Mallory") || l.contains("pay_bad")),
        "the denied call ran: {counts:#?}"
    );
    // The model read the denial's reason.
    let denied = output.trace.iter().find_map(|e| match e {
        TraceEvent::ToolCall(call) if &*call.id == "pay_bad" => {
            let hookwire::agent::ToolCallEvent {
                decision, result, ..
            } = &**call;
            Some((decision.to_string(), result.text_content()))
        }
        _ => None,
    });
    let (decision, text) = denied.unwrap();
    assert_eq!(decision, "denied");
    assert!(text.contains("not a vendor of ours"), "{text}");
    // Deciding after the run is over: still refused, still once.
    let late = client
        .decide("pay-1", &pay_ok, Verdict::Approve)
        .await
        .unwrap_err();
    assert_eq!(late.status(), Some(409), "{late}");
    assert_eq!(count(&ledger_counts(&ledger), "done pay_vendor Acme"), 1);
}

/// The run's output; a run that does not finish in 2 minutes fails the
/// test instead of hanging it.
async fn finish(client: &DurableClient, invocation: &str) -> hookwire::agent::RunOutput {
    tokio::time::timeout(Duration::from_secs(120), client.output(invocation))
        .await
        .expect("the run did not finish in 2 minutes")
        .unwrap()
}

async fn wait_pending(client: &DurableClient, session: &str, n: usize) -> Vec<PendingApproval> {
    for _ in 0..600 {
        if let Some(state) = client.state(session).await.unwrap()
            && state.approvals.pending.len() == n
        {
            return state.approvals.pending;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("session {session} never had {n} waiting call(s)");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gives_clear_errors() {
    // A session id the ingress would reject (or read as another path):
    // refused before any request.
    for id in ["a b", "a/b", "", "..", "caf\u{e9}"] {
        let e = check_session_id(id).unwrap_err();
        assert!(e.to_string().starts_with("invalid session id"), "{e}");
    }
    check_session_id("pmo-2026_w48.run~1").unwrap();
    // The server unreachable at start: a clear error naming the address,
    // from the client and from the service asked to register.
    let port = free_port();
    let client = DurableClient::new(format!("http://127.0.0.1:{port}")).unwrap();
    let e = client.start("s1", "hi", None).await.unwrap_err();
    assert!(matches!(e, ClientError::Unreachable { .. }), "{e}");
    assert!(
        e.to_string().starts_with(&format!(
            "the Restate server at http://127.0.0.1:{port}/AgentSession/s1/run/send is unreachable"
        )),
        "{e}"
    );
    let e = client.start("a b", "hi", None).await.unwrap_err();
    assert!(matches!(e, ClientError::InvalidSessionId { .. }), "{e}");

    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_durable_pmo"))
        .args(["--listen", &format!("127.0.0.1:{}", free_port())])
        .args(["--register", &format!("http://127.0.0.1:{port}")])
        .env("DURABLE_PMO_LEDGER", &ledger)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "cannot register: the Restate server at http://127.0.0.1:{port}/deployments is unreachable"
        )),
        "{stderr}"
    );
    assert!(ledger_lines(&ledger).is_empty());

    // The ingress itself rejects a key with a raw space (sent as is, which
    // curl and reqwest refuse to do): a 400, and nothing runs.
    let server = Server::start();
    let address = server.ingress.trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    let body = r#"{"prompt":"x"}"#;
    let request = format!(
        "POST /AgentSession/a b/run/send HTTP/1.1\r\nhost: {address}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    // In one write: the server may answer the request line and close
    // before the rest arrives, and a later write would fail on the closed
    // connection (EPIPE) although the answer is there to read.
    let _ = stream.write_all(request.as_bytes());
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(ledger_lines(&ledger).is_empty());

    // A model that fails (its script runs out after one call): the run
    // ends with the model's error through the ingress, and the call that
    // ran is in the session's state, once.
    let script = dir.path().join("short.yaml");
    std::fs::write(
        &script,
        "turns:\n  - tool_calls:\n      - {id: c1, name: project_status, arguments: {project: P1}}\n",
    )
    .unwrap();
    let port = free_port();
    let _service = Service::start(&ServiceSpec {
        port,
        ledger: &ledger,
        script: Some(&script),
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    });
    let client = server.registered_client(port).await;
    let e = client.run("short-1", "check P1").await.unwrap_err();
    assert_eq!(e.status(), Some(500), "{e}");
    assert!(e.to_string().contains("ran out after 1 turn(s)"), "{e}");
    let counts = ledger_counts(&ledger);
    assert_eq!(count(&counts, "done project_status P1"), 1, "{counts:#?}");
    let state = client.state("short-1").await.unwrap().unwrap();
    assert_eq!(state.history.len(), 3, "{:?}", state.history);
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

/// POSTs `body` to `path` on `address` (host:port) as raw HTTP/1.1 and
/// returns the status code and the response text.
fn post(address: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let content_type = if body.is_empty() {
        ""
    } else {
        "content-type: application/json\r\n"
    };
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nhost: {address}\r\n{content_type}\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let code = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_refuses_internal_handlers_bad_session_ids_and_huge_prompts() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let port = free_port();
    let _service = Service::start(&ServiceSpec {
        port,
        ledger: &ledger,
        script: None,
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    });
    let client = server.registered_client(port).await;
    let address = server.ingress.trim_start_matches("http://").to_owned();

    // A session waits on the payment's approval.
    client
        .start("door-1", "Weekly PMO round", None)
        .await
        .unwrap();
    let pending = wait_pending(&client, "door-1", 1).await.remove(0);
    let gate = format!("door-1%2F{}", pending.id());

    // The approval gate is private: an outside `open` cannot replace the
    // waiting call's awakeable, and an outside `decide` cannot skip the
    // session's checks.
    let open = hookwire::serde_json::json!({"awakeable": "sign_1forged", "pending": pending});
    for (handler, body) in [
        ("open", open.to_string()),
        ("decide", r#"{"decision":"approve"}"#.to_owned()),
    ] {
        let (code, answer) = post(&address, &format!("/AgentApproval/{gate}/{handler}"), &body);
        assert!(
            (400..500).contains(&code),
            "an outside call of AgentApproval/{handler} got {code}: {answer}"
        );
    }
    // A decision for a call that never waited: 404 at once.
    let never = client
        .decide("door-1", &"0".repeat(64), Verdict::Approve)
        .await
        .unwrap_err();
    assert_eq!(never.status(), Some(404), "{never}");
    // The call still waits for the person, and their decision still works.
    let decided = client
        .decide("door-1", &pending.id(), Verdict::Approve)
        .await
        .unwrap();
    assert_eq!(decided.pending.id(), pending.id());

    // A session id the client refuses is refused by the service too (the
    // ingress decodes `%2F` into the key): 400, nothing runs.
    for id in ["x%2Fy", "a%00b", "%2E%2E", &"k".repeat(200)] {
        let (code, answer) = post(&address, &format!("/AgentSession/{id}/state"), "");
        assert_eq!(code, 400, "session id {id:?}: {answer}");
        assert!(answer.contains("invalid session id"), "{answer}");
    }

    // A prompt over the limit is refused up front with 413, and the
    // session takes the next message at once.
    let huge = format!(
        r#"{{"prompt":"{}"}}"#,
        "x".repeat(hookwire::durable::MAX_PROMPT_BYTES + 1)
    );
    let (code, answer) = post(&address, "/AgentSession/door-2/run", &huge);
    assert_eq!(code, 413, "{}", &answer[..answer.len().min(300)]);
    assert!(client.state("door-2").await.unwrap().is_none());
}

/// The `key <agent> <tool> <argument> <key>` lines of the ledger, as
/// (tool and argument, key), in order.
fn ledger_keys(ledger: &std::path::Path, agent: &str) -> Vec<(String, String)> {
    ledger_lines(ledger)
        .into_iter()
        .filter_map(|(line, _)| {
            let rest = line.strip_prefix(&format!("key {agent} "))?;
            let (what, key) = rest.rsplit_once(' ')?;
            Some((what.to_owned(), key.to_owned()))
        })
        .collect()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_in_one_process_each_have_their_own_sessions_and_approvals() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = dir.path().join("pay.yaml");
    std::fs::write(
        &script,
        "turns:\n  - tool_calls:\n      - {id: pay, name: pay_vendor, arguments: {vendor: Acme, amount: 10}}\n  - text: paid\n",
    )
    .unwrap();
    let port = free_port();
    let _service = Service::start(&ServiceSpec {
        port,
        ledger: &ledger,
        script: Some(&script),
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    });
    // The PMO declares `durable_name = "Agent"`; finance's is derived from
    // its name `durable-finance`.
    use hookwire::agent::Agent;
    use hookwire_examples::durable_pmo::{DurableFinance, DurablePmo};
    assert_eq!(DurablePmo::DURABLE_NAME.as_str(), "Agent");
    assert_eq!(DurableFinance::DURABLE_NAME.as_str(), "DurableFinance");
    let pmo = server.registered_client(port).await;
    let finance = pmo.clone().for_agent::<DurableFinance>();

    // One session id in each agent: two sessions, each waiting.
    let runs = [
        pmo.start("s1", "pay Acme", None).await.unwrap(),
        finance.start("s1", "pay Acme", None).await.unwrap(),
    ];
    let pmo_call = wait_pending(&pmo, "s1", 1).await.remove(0);
    let finance_call = wait_pending(&finance, "s1", 1).await.remove(0);
    assert_eq!(pmo_call.path(), "durable-PMO / pay_vendor");
    assert_eq!(finance_call.path(), "durable-finance / pay_vendor");
    assert_ne!(pmo_call.id(), finance_call.id());

    // An approval id of one agent waits nowhere in the other.
    for (client, id) in [(&pmo, finance_call.id()), (&finance, pmo_call.id())] {
        let e = client
            .decide("s1", &id, Verdict::Approve)
            .await
            .unwrap_err();
        assert_eq!(e.status(), Some(404), "{e}");
    }
    assert!(!ledger_counts(&ledger).keys().any(|l| l.contains("done")));
    // Finance's gates are private too.
    let address = server.ingress.trim_start_matches("http://").to_owned();
    let (code, answer) = post(
        &address,
        &format!("/DurableFinanceApproval/s1%2F{}/decide", finance_call.id()),
        r#"{"decision":"approve"}"#,
    );
    assert!((400..500).contains(&code), "{code}: {answer}");

    // Each decided in its own agent: both runs finish, each paid once.
    pmo.decide("s1", &pmo_call.id(), Verdict::Approve)
        .await
        .unwrap();
    finance
        .decide("s1", &finance_call.id(), Verdict::Approve)
        .await
        .unwrap();
    for (client, run) in [(&pmo, &runs[0]), (&finance, &runs[1])] {
        let output = finish(client, run).await;
        assert_eq!(output.status, RunStatus::Completed);
        assert_eq!(output.text, "paid");
    }
    let counts = ledger_counts(&ledger);
    assert_eq!(count(&counts, "done pay_vendor Acme"), 2, "{counts:#?}");
    let keys: Vec<_> = ["durable-PMO", "durable-finance"]
        .iter()
        .map(|agent| ledger_keys(&ledger, agent))
        .collect();
    assert_eq!((keys[0].len(), keys[1].len()), (1, 1), "{keys:?}");
    assert_ne!(keys[0][0].1, keys[1][0].1);
}

/// The service on `port` playing `script`, its tools taking `delay_ms`.
fn spec<'a>(
    port: u16,
    ledger: &'a std::path::Path,
    script: &'a std::path::Path,
    delay_ms: u64,
) -> ServiceSpec<'a> {
    ServiceSpec {
        port,
        ledger,
        script: Some(script),
        delay_ms,
        reuse_port: false,
        timeout_ms: None,
    }
}

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
    let state = client.state("size-1").await.unwrap().unwrap();
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
async fn tool_results(client: &DurableClient, session: &str) -> Vec<String> {
    let state = client.state(session).await.unwrap().unwrap();
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
    assert_eq!(tool_results(&client, "parallel-1").await, four_results());
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
    assert_eq!(tool_results(&client, "parallel-2").await, four_results());
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
    assert_eq!(tool_results(&client, "entries-1").await, results);
}

/// Approving with edited arguments that are not a JSON object is refused
/// with 400 by the session's `approve`, through the client and as raw
/// HTTP (`null`, a list, a string, a number, or no `arguments` at all):
/// nothing is decided, the call still waits, and a good decision still
/// works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_that_is_not_an_object_is_refused_with_400() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let port = free_port();
    let _service = Service::start(&ServiceSpec {
        port,
        ledger: &ledger,
        script: None,
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    });
    let client = server.registered_client(port).await;
    let address = server.ingress.trim_start_matches("http://").to_owned();
    client
        .start("edit-1", "Weekly PMO round", None)
        .await
        .unwrap();
    let pending = wait_pending(&client, "edit-1", 1).await.remove(0);
    let id = pending.id();

    let edit = Verdict::ApproveWith {
        arguments: hookwire::serde_json::json!(["Acme", 10]),
    };
    let e = client.decide("edit-1", &id, edit).await.unwrap_err();
    assert_eq!(e.status(), Some(400), "{e}");
    assert!(
        e.to_string().contains(&format!(
            "the edited arguments for call `{id}` are an array, not a JSON object of the tool's arguments"
        )),
        "{e}"
    );
    for (arguments, kind) in [("null", "null"), (r#""x""#, "a string"), ("5", "a number")] {
        let body = format!(r#"{{"id":"{id}","decision":"approve_with","arguments":{arguments}}}"#);
        let (code, answer) = post(&address, "/AgentSession/edit-1/approve", &body);
        assert_eq!(code, 400, "{arguments}: {answer}");
        assert!(
            answer.contains(&format!("are {kind}, not a JSON object")),
            "{arguments}: {answer}"
        );
    }
    let body = format!(r#"{{"id":"{id}","decision":"approve_with"}}"#);
    let (code, answer) = post(&address, "/AgentSession/edit-1/approve", &body);
    assert_eq!(code, 400, "no arguments: {answer}");

    // Nothing was decided: the call still waits, and an object edit works.
    let still = wait_pending(&client, "edit-1", 1).await;
    assert_eq!(still[0].id(), id);
    let arguments = pending.arguments.clone();
    let decided = client
        .decide("edit-1", &id, Verdict::ApproveWith { arguments })
        .await
        .unwrap();
    assert_eq!(decided.pending.id(), id);
}
