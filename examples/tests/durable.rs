//! Durable sessions against the real Restate server (`restate-server`
//! 1.7.12, installed by `.ci/install-restate`) and the `durable_pmo`
//! service as a separate process: SIGKILLed mid-run and restarted, run as
//! two replicas, paused for approval across a restart. Every side effect is
//! counted in a ledger file outside the processes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod browser_support;
mod durable_support;

// The tests, one module per theme, under `durable/` (a module file at
// `tests/` would be a test binary of its own).
#[path = "durable/approvals.rs"]
mod approvals;
#[path = "durable/cluster.rs"]
mod cluster;
#[path = "durable/console.rs"]
mod console;
#[path = "durable/crashes.rs"]
mod crashes;
#[path = "durable/identity.rs"]
mod identity;
#[path = "durable/limits.rs"]
mod limits;
#[path = "durable/parallel.rs"]
mod parallel;
#[path = "durable/requests.rs"]
mod requests;

use std::io::{Read, Write};
use std::time::Duration;

use durable_support::{
    Server, Service, ServiceSpec, five_step_script, free_port, ledger_counts, ledger_lines,
    wait_ledger,
};
use hookwire::agent::{RunStatus, TraceEvent};
use hookwire::approval::{ApprovalDecision, PendingApproval};
use hookwire::durable::{ClientError, DurableClient, check_session_id};
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

/// The run's output; a run that does not finish in 2 minutes fails the
/// test instead of hanging it.
async fn finish(client: &DurableClient, invocation: &str) -> hookwire::agent::RunOutput {
    tokio::time::timeout(Duration::from_secs(120), client.output(invocation))
        .await
        .expect("the run did not finish in 2 minutes")
        .unwrap()
}

/// Who decided each approval of the call `id` (the model's call id) in the
/// run's trace; `None` if the trace has no such call.
fn deciders(output: &hookwire::agent::RunOutput, id: &str) -> Option<Vec<Option<String>>> {
    output.trace.iter().find_map(|e| match e {
        TraceEvent::ToolCall(call) if &*call.id == id => {
            Some(call.approvals.iter().map(|n| n.who.clone()).collect())
        }
        _ => None,
    })
}

/// The `durable_pmo` service on a free port, its model answering the
/// script `turns` (YAML, written into `dir`), its side effects counted in
/// `ledger`; and the port.
fn scripted_service(
    dir: &std::path::Path,
    ledger: &std::path::Path,
    turns: &str,
) -> (Service, u16) {
    let script = dir.join("script.yaml");
    std::fs::write(&script, turns).unwrap();
    let port = free_port();
    let service = Service::start(&ServiceSpec {
        port,
        ledger,
        script: Some(&script),
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    });
    (service, port)
}

async fn wait_pending(
    client: &DurableClient,
    admin: &str,
    session: &str,
    n: usize,
) -> Vec<PendingApproval> {
    for _ in 0..600 {
        if let Some(state) = client.state(admin, session).await.unwrap()
            && state.approvals.pending.len() == n
        {
            return state.approvals.pending;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("session {session} never had {n} waiting call(s)");
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
