//! Approvals: a wait across a restart, two agents' sessions and approvals
//! kept apart, an edit that is not an object refused, a sticky decision
//! given through the ingress, `defer` refused.

use super::*;

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
    let pending = wait_pending(&client, &server.admin, "pay-1", 2).await;
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
        .decide("pay-1", "pay_ok", ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(unknown.status(), Some(404), "{unknown}");
    assert!(
        unknown.to_string().contains("no call `pay_ok` waits"),
        "{unknown}"
    );

    // The person who decides is named in the request (`"who"`), and so in
    // the run's trace.
    let decided = client
        .decide_by("pay-1", &pay_ok, ApprovalDecision::Approve, Some("alice"))
        .await
        .unwrap();
    assert_eq!(decided.pending.tool(), "pay_vendor");
    assert_eq!(decided.who.as_deref(), Some("alice"));
    // A second decision for the same call: refused, the first one holds.
    let twice = client
        .decide(
            "pay-1",
            &pay_ok,
            ApprovalDecision::Deny("changed my mind".into()),
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
            ApprovalDecision::Deny("not a vendor of ours".into()),
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
    // Who decided each call: alice, named with the approval; nobody named
    // for the denial.
    assert_eq!(
        deciders(&output, "pay_ok"),
        Some(vec![Some("alice".to_owned())])
    );
    assert_eq!(deciders(&output, "pay_bad"), Some(vec![None]));
    // Deciding after the run is over: still refused, still once.
    let late = client
        .decide("pay-1", &pay_ok, ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(late.status(), Some(409), "{late}");
    assert_eq!(count(&ledger_counts(&ledger), "done pay_vendor Acme"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_in_one_process_each_have_their_own_sessions_and_approvals() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let (_service, port) = scripted_service(
        dir.path(),
        &ledger,
        "turns:\n  - tool_calls:\n      - {id: pay, name: pay_vendor, arguments: {vendor: Acme, amount: 10}}\n  - text: paid\n",
    );
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
    let pmo_call = wait_pending(&pmo, &server.admin, "s1", 1).await.remove(0);
    let finance_call = wait_pending(&finance, &server.admin, "s1", 1)
        .await
        .remove(0);
    assert_eq!(pmo_call.path(), "durable-PMO / pay_vendor");
    assert_eq!(finance_call.path(), "durable-finance / pay_vendor");
    assert_ne!(pmo_call.id(), finance_call.id());

    // An approval id of one agent waits nowhere in the other.
    for (client, id) in [(&pmo, finance_call.id()), (&finance, pmo_call.id())] {
        let e = client
            .decide("s1", &id, ApprovalDecision::Approve)
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
    pmo.decide("s1", &pmo_call.id(), ApprovalDecision::Approve)
        .await
        .unwrap();
    finance
        .decide("s1", &finance_call.id(), ApprovalDecision::Approve)
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
    let pending = wait_pending(&client, &server.admin, "edit-1", 1)
        .await
        .remove(0);
    let id = pending.id();

    let edit = ApprovalDecision::ApproveWith(hookwire::serde_json::json!(["Acme", 10]));
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
    let still = wait_pending(&client, &server.admin, "edit-1", 1).await;
    assert_eq!(still[0].id(), id);
    let arguments = pending.arguments.clone();
    let decided = client
        .decide("edit-1", &id, ApprovalDecision::ApproveWith(arguments))
        .await
        .unwrap();
    assert_eq!(decided.pending.id(), id);
}

/// `always_approve` through the ingress approves the waiting call and is
/// the session's sticky decision: the tool's next call does not wait.
/// `defer`, and a decision no version knows, decide nothing (400): the
/// call still waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sticky_decision_through_the_ingress_is_the_sessions_and_defer_is_refused() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let (_service, port) = scripted_service(
        dir.path(),
        &ledger,
        "turns:\n  - tool_calls:\n      - {id: first, name: pay_vendor, arguments: {vendor: Acme, amount: 10}}\n  - tool_calls:\n      - {id: second, name: pay_vendor, arguments: {vendor: Acme, amount: 20}}\n  - text: paid\n",
    );
    let client = server.registered_client(port).await;
    let address = server.ingress.trim_start_matches("http://").to_owned();
    let invocation = client.start("sticky-1", "pay", None).await.unwrap();
    let id = wait_pending(&client, &server.admin, "sticky-1", 1)
        .await
        .remove(0)
        .id();

    let e = client
        .decide("sticky-1", &id, ApprovalDecision::Defer)
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(400), "{e}");
    assert!(
        e.to_string().contains("`defer` does not decide call"),
        "{e}"
    );
    let body = format!(r#"{{"id":"{id}","decision":"maybe"}}"#);
    let (code, answer) = post(&address, "/AgentSession/sticky-1/approve", &body);
    assert_eq!(code, 400, "an unknown decision: {answer}");
    assert_eq!(
        wait_pending(&client, &server.admin, "sticky-1", 1).await[0].id(),
        id
    );

    client
        .decide("sticky-1", &id, ApprovalDecision::AlwaysApprove)
        .await
        .unwrap();
    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed, "{output:?}");
    let counts = ledger_counts(&ledger);
    assert_eq!(count(&counts, "done pay_vendor Acme"), 2, "{counts:#?}");
    let state = client
        .state(&server.admin, "sticky-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        state.approvals.sticky.get("pay_vendor"),
        Some(&hookwire::approval::Sticky::AlwaysApprove)
    );
    assert!(state.approvals.pending.is_empty() && state.approvals.resolved.is_empty());
}
