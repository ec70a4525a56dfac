//! Durable sessions on a three-node Restate cluster started from the
//! repository's `deploy/` files: sessions with tool calls and approvals
//! live through the loss of a node that does not lead their partition,
//! then of the one that does; clients move to the surviving nodes'
//! ingress; an approval started through one node is decided through
//! another; the killed nodes come back. One test, one cluster (CI time).

use std::collections::BTreeMap;

use super::*;
use durable_support::cluster::{Cluster, config_file};

/// Sessions of the test.
const SESSIONS: usize = 3;

/// Each session: a check, a payment that waits for approval, three checks,
/// an answer.
const SCRIPT: &str = "turns:
  - tool_calls: [{id: c1, name: project_status, arguments: {project: P1}}]
  - tool_calls: [{id: pay, name: pay_vendor, arguments: {vendor: Acme, amount: 10}}]
  - tool_calls: [{id: c2, name: project_status, arguments: {project: P2}}]
  - tool_calls: [{id: c3, name: project_status, arguments: {project: P3}}]
  - tool_calls: [{id: c4, name: project_status, arguments: {project: P4}}]
  - text: all done
";

#[test]
fn the_deploy_files_are_the_ones_the_compose_file_mounts() {
    let compose =
        std::fs::read_to_string(durable_support::workspace_root().join("deploy/compose.yaml"))
            .unwrap();
    for n in 1..=3 {
        let text = std::fs::read_to_string(config_file(n)).unwrap();
        assert!(
            compose.contains(&format!("./restate-{n}.toml:")),
            "compose.yaml does not mount restate-{n}.toml"
        );
        for setting in [
            "cluster-name = \"hookwire\"",
            "default-replication = 2",
            "type = \"replicated\"",
        ] {
            assert!(text.contains(setting), "restate-{n}.toml lacks {setting}");
        }
        assert_eq!(text.contains("auto-provision = true"), n == 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_live_through_the_loss_of_a_follower_then_of_the_leader() {
    let mut cluster = Cluster::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let script = dir.path().join("script.yaml");
    std::fs::write(&script, SCRIPT).unwrap();
    // The service as two replicas behind one address.
    let port = free_port();
    let mut spec = spec(port, &ledger, &script, 300);
    spec.reuse_port = true;
    let _replicas = [Service::start(&spec), Service::start(&spec)];
    cluster
        .client()
        .register(&cluster.nodes[0].admin, &format!("http://127.0.0.1:{port}"))
        .await
        .unwrap();

    // Session k starts through node k, with an idempotency key.
    let mut invocations = Vec::new();
    for k in 0..SESSIONS {
        let client = cluster.client_of(&[k % 3]);
        let session = format!("c-{k}");
        let id = client
            .start(&session, "check and pay", Some(&format!("start-{session}")))
            .await
            .unwrap();
        invocations.push((session, id));
    }

    // A node that does not lead the partition dies mid-call.
    let leader = cluster.wait_leader();
    let follower = (leader + 1) % 3;
    wait_ledger(&ledger, "start project_status P1");
    cluster.kill(follower);

    // Every payment waits; each is decided through a node other than the
    // one its session started through, the dead follower first in line
    // where it comes first (refused: the client moves on).
    let admin = cluster.nodes[leader].admin.clone();
    let reader = cluster.client();
    for (k, (session, _)) in invocations.iter().enumerate() {
        let pending = wait_pending(&reader, &admin, session, 1).await;
        let decider = cluster.client_of(&[(k + 1) % 3, (k + 2) % 3]);
        let decided = decider
            .decide(session, &pending[0].id(), ApprovalDecision::Approve)
            .await
            .unwrap();
        assert_eq!(decided.pending.tool(), "pay_vendor");
        assert_ne!(decider.ingress(), cluster.nodes[k % 3].ingress);
        assert_ne!(decider.ingress(), cluster.nodes[follower].ingress);
    }
    cluster.restart(follower);

    // Then the leader dies while the sessions run their checks.
    wait_ledger(&ledger, "start project_status P3");
    let leader = cluster.wait_leader();
    cluster.kill(leader);

    // The outputs, read through a client that asks the dead node first.
    let mut order = vec![leader];
    order.extend((0..3).filter(|&i| i != leader));
    let client = cluster.client_of(&order);
    for (session, id) in &invocations {
        let output = finish(&client, id).await;
        assert_eq!(output.status, RunStatus::Completed, "{session}");
        assert_eq!(output.text, "all done", "{session}");
    }
    assert_ne!(client.ingress(), cluster.nodes[leader].ingress);
    let new_leader = cluster.wait_leader();
    assert_ne!(new_leader, leader);

    // The old leader comes back and serves: a finished run's output and a
    // session's state through it alone.
    cluster.restart(leader);
    let back = cluster.client_of(&[leader]);
    let output = finish(&back, &invocations[0].1).await;
    assert_eq!(output.text, "all done");
    // (A node just back may answer its first queries with a 500, "No such
    // scanner", while it reconnects to the partition's leader: asked again.)
    let mut state = None;
    for _ in 0..100 {
        match back
            .state(&cluster.nodes[leader].admin, &invocations[0].0)
            .await
        {
            Ok(found) => {
                state = found;
                break;
            }
            Err(e) if e.status() == Some(500) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{e}"),
        }
    }
    let state = state.expect("the restarted node never served the state");
    assert!(state.approvals.pending.is_empty());
    assert_eq!(
        state.history.last().map(Message::text).as_deref(),
        Some("all done")
    );

    assert_runs_within_the_window(&ledger);
}

/// Every call and model answer ran, once per session, but for the steps
/// in flight when the leader died (at most one call and one answer per
/// session, the at-least-once window: results the leader had not written
/// to the log run again on the new one).
fn assert_runs_within_the_window(ledger: &std::path::Path) {
    let mut runs: BTreeMap<String, (String, usize)> = BTreeMap::new();
    for (what, key) in ledger_keys(ledger, "durable-PMO") {
        runs.entry(key).or_insert((what, 0)).1 += 1;
    }
    // Four checks and a payment per session, each its own idempotency key.
    assert_eq!(runs.len(), SESSIONS * 5, "{runs:#?}");
    let again: Vec<_> = runs.values().filter(|(_, n)| *n > 1).collect();
    assert!(
        again.len() <= SESSIONS && again.iter().all(|(_, n)| *n == 2),
        "calls ran again beyond the window: {runs:#?}"
    );
    let counts = ledger_counts(ledger);
    let mut extra = 0;
    for turn in 0..6 {
        let n = count(&counts, &format!("model {turn}"));
        assert!(n >= SESSIONS, "model {turn}: {counts:#?}");
        extra += n - SESSIONS;
    }
    assert!(
        extra <= SESSIONS,
        "model answers ran again beyond the window: {counts:#?}"
    );
    eprintln!(
        "cluster: calls run again {}, model answers {extra}",
        again.len()
    );
}
