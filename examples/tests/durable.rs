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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_run_again_after_a_restart_has_what_is_left_of_its_timeout() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = five_step_script(dir.path(), 1);
    let port = free_port();
    // Each call may take 3 s; the tool takes 2 s.
    let spec = ServiceSpec {
        port,
        ledger: &ledger,
        script: Some(&script),
        delay_ms: 2000,
        reuse_port: false,
        timeout_ms: Some(3000),
    };
    let mut service = Service::start(&spec);
    let client = server.registered_client(port).await;
    let invocation = client.start("timer-1", "check P1", None).await.unwrap();
    wait_ledger(&ledger, "start project_status P1");
    // The call dies half a second in; the service is back 1.5 s later.
    tokio::time::sleep(Duration::from_millis(500)).await;
    service.proc.kill();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let _service = Service::start(&spec);

    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    // Run again, the call had about 1 s of its 3 s left, not a fresh 3 s:
    // it timed out, and the tool never completed.
    let result = output.trace.iter().find_map(|e| match e {
        TraceEvent::ToolCall { id, result, .. } if id == "c1" => Some(result.text_content()),
        _ => None,
    });
    let result = result.unwrap();
    assert!(result.contains("timed out after 3000 ms"), "{result}");
    let counts = ledger_counts(&ledger);
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
