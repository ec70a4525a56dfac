//! The durable-sessions block of docs/durable.md, as a user runs it: twice in a row
//! against the same server data. Each run starts the real Restate server
//! and the `durable_pmo` service, stops at the payment, kills and restarts
//! the service, approves, and sees the run finish; the second run must work
//! as the first did (a fresh session id, a deployment registered again).
//!
//! Only what a test must change is changed: the server binary, the already
//! built service, and the data, log and ledger paths (a temporary folder,
//! the same for both runs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod durable_support;

use std::path::Path;
use std::process::Command;

/// The `sh` block of docs/durable.md that says it is run by this test
/// (its first line, which the block keeps: a comment).
fn readme_block() -> String {
    let page = std::fs::read_to_string(durable_support::workspace_root().join("docs/durable.md"))
        .expect("docs/durable.md");
    let fence = "```sh\n# run by examples/tests/readme_durable.rs\n";
    let section = page.split_once(fence).expect("the page's durable block").1;
    let len = section.find("```").expect("the block's end");
    section[..len].to_owned()
}

/// The block with the test's paths: every substitution must apply.
fn for_test(block: &str, dir: &Path) -> String {
    let server = durable_support::server_binary();
    let service = env!("CARGO_BIN_EXE_durable_pmo");
    let mut script = block.to_owned();
    for (from, to) in [
        (
            ".ci/install-restate     # restate-server 1.7.12 under target/restate/ (npm)\n",
            String::new(),
        ),
        (
            "$(ls target/restate/node_modules/@restatedev/restate-server-*/bin/restate-server)",
            format!("'{}'", server.display()),
        ),
        (
            "cargo build -p hookwire-examples --bin durable_pmo\n",
            String::new(),
        ),
        ("target/debug/durable_pmo", format!("'{service}'")),
        (
            "target/restate/data",
            format!("'{}'", dir.join("data").display()),
        ),
        (
            "target/restate/server.log",
            format!("'{}'", dir.join("server.log").display()),
        ),
        (
            "$PWD/target/durable-ledger.txt",
            format!("'{}'", dir.join("ledger").display()),
        ),
    ] {
        assert!(
            script.contains(from),
            "the docs/durable.md block no longer has {from:?}"
        );
        script = script.replace(from, &to);
    }
    script
}

#[test]
fn the_readme_durable_block_runs_and_runs_again() {
    let dir = tempfile::tempdir().unwrap();
    let script = for_test(&readme_block(), dir.path());
    let mut sessions = Vec::new();
    for run in 1..=2 {
        // The block waits in loops (for the server, for the pause): a
        // broken run must fail, not hang.
        let out = Command::new("timeout")
            .args(["120", "bash", "-c", &script])
            .current_dir(durable_support::workspace_root())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "run {run}:\n{stdout}\n{stderr}");
        // The state shown at the pause names the payment; the attach shows
        // the run completed; the ledger shows the payment made once.
        // (The state is JSON inside the admin query's JSON: escaped.)
        assert!(
            stdout.contains(r#"\"tool\":\"pay_vendor\",\"digest\""#),
            "run {run}: {stdout}"
        );
        assert!(
            stdout.contains(r#""status":{"status":"completed"}"#),
            "run {run}: {stdout}"
        );
        let ledger = std::fs::read_to_string(dir.path().join("ledger")).unwrap();
        assert_eq!(
            ledger.matches("done pay_vendor Acme Audit").count(),
            1,
            "run {run}: {ledger}"
        );
        let session = stdout
            .split(r#"\"correlation_id\":\""#)
            .nth(1)
            .and_then(|rest| rest.split('\\').next())
            .expect("the session's id")
            .to_owned();
        sessions.push(session);
    }
    assert_ne!(sessions[0], sessions[1], "each run is a new session");
}
