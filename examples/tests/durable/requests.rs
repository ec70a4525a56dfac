//! What the service's door refuses: bad input, internal handlers, bad
//! session ids, huge prompts.

use super::*;

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
    let state = client
        .state(&server.admin, "short-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(state.history.len(), 3, "{:?}", state.history);
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
    let pending = wait_pending(&client, &server.admin, "door-1", 1)
        .await
        .remove(0);
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
        .decide("door-1", &"0".repeat(64), ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(never.status(), Some(404), "{never}");
    // The call still waits for the person, and their decision still works.
    let decided = client
        .decide("door-1", &pending.id(), ApprovalDecision::Approve)
        .await
        .unwrap();
    assert_eq!(decided.pending.id(), pending.id());

    // A session id the client refuses is refused by the service too (the
    // ingress decodes `%2F` into the key): 400, nothing runs.
    for id in ["x%2Fy", "a%00b", "%2E%2E", &"k".repeat(200)] {
        let body = r#"{"id": "x", "decision": "approve"}"#;
        let (code, answer) = post(&address, &format!("/AgentSession/{id}/approve"), body);
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
    assert!(
        client
            .state(&server.admin, "door-2")
            .await
            .unwrap()
            .is_none()
    );
}
