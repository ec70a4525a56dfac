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
        TraceEvent::ToolCall {
            id,
            decision,
            result,
            ..
        } if id == "pay_bad" => Some((decision.clone(), result.text_content())),
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
    write!(
        stream,
        "POST /AgentSession/a b/run/send HTTP/1.1\r\nhost: {address}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
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
            TraceEvent::ToolCall {
                id,
                decision,
                result,
                ..
            } if id == "c1" => Some((decision.clone(), result.text_content())),
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
        delay_ms: 1000,
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
