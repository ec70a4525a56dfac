//! `cardgen mcp lock [--check] DIR` against real servers: the venv's
//! `mcp-server-time` and `runtime/tests/fixtures/mcp/shifty_server.py`,
//! whose arguments change its tools (a description, a schema, annotations,
//! a new tool, a missing one). `.ci/run` installs the venv
//! (`HOOKWIRE_MCP_VENV`, default `target/mcp/venv`).

use std::path::{Path, PathBuf};
use std::process::Command;

use hookwire_codegen::spec::{LockedTool, McpLock};
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn venv_bin(name: &str) -> String {
    let venv = std::env::var_os("HOOKWIRE_MCP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/mcp/venv"));
    let path = venv.join("bin").join(name);
    assert!(
        path.exists(),
        "{} is not installed: run `.ci/run`, or point HOOKWIRE_MCP_VENV at a venv with mcp-server-time",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

/// A cards folder whose `hookwire.yaml` declares `time` and `bank` (the
/// shifty server started with `bank_args`).
fn folder(dir: &Path, bank_args: &[&str]) {
    let shifty = root().join("runtime/tests/fixtures/mcp/shifty_server.py");
    let mut args = vec![shifty.to_string_lossy().into_owned()];
    args.extend(bank_args.iter().map(|a| (*a).to_owned()));
    let yaml = format!(
        // A generous startup limit: the suite starts real Python servers
        // while other tests run beside it on a 2-core machine.
        "servers:\n  time:\n    command: {:?}\n    args: [\"--local-timezone\", \"UTC\"]\n    startup_timeout_sec: 120\n  bank:\n    command: {:?}\n    args: {}\n    startup_timeout_sec: 120\n",
        venv_bin("mcp-server-time"),
        venv_bin("python"),
        serde_json::to_string(&args).unwrap()
    );
    std::fs::write(dir.join("hookwire.yaml"), yaml).unwrap();
}

fn cardgen(args: &[&str], dir: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cardgen"))
        .args(args)
        .arg(dir)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_lock_pins_every_tool_and_check_names_each_change() {
    let dir = tempfile::tempdir().unwrap();
    folder(dir.path(), &[]);
    let (ok, out, err) = cardgen(&["mcp", "lock"], dir.path());
    assert!(ok, "{out}{err}");
    let text = std::fs::read_to_string(dir.path().join("hookwire.lock")).unwrap();
    let lock = McpLock::parse(&text).unwrap();
    // Written sorted, as it reads back.
    assert_eq!(text, lock.to_text());
    let names = |server: &str| lock.servers[server].keys().cloned().collect::<Vec<_>>();
    assert_eq!(names("bank"), ["balance", "pull", "transfer"]);
    assert!(
        names("time").contains(&"get_current_time".to_owned()),
        "{text}"
    );
    let transfer = &lock.servers["bank"]["transfer"];
    assert_eq!(
        transfer,
        &LockedTool::new(
            "Moves money.",
            json!({"type": "object", "properties": {"to": {"type": "string"}, "amount": {"type": "integer"}}, "required": ["to", "amount"]}),
            Some(json!({"destructiveHint": true, "readOnlyHint": false})),
        )
    );
    assert!(
        text.contains("\"input_schema\": {\n          \"properties\": {\n            \"account\""),
        "{text}"
    );

    let (ok, out, err) = cardgen(&["mcp", "lock", "--check"], dir.path());
    assert!(ok, "{out}{err}");
    assert_eq!(out, "the MCP servers offer the locked tools\n");

    for (args, expected) in [
        (
            &["description", "new", "missing"][..],
            "error: server `bank`: tool `balance` is missing: the lock has it, the server no longer lists it\n\
             error: server `bank`: tool `exfiltrate` is new: the lock does not have it\n\
             error: server `bank`: tool `transfer` changed since it was locked: its description differs\n\
             error: 3 differences from the lock; review the servers' tools, then write the lock again with `cardgen mcp lock`\n",
        ),
        (
            &["schema", "annotations"][..],
            "error: server `bank`: tool `balance` changed since it was locked: its annotations (destructiveHint, readOnlyHint) differ\n\
             error: server `bank`: tool `transfer` changed since it was locked: its input schema differs\n\
             error: 2 differences from the lock; review the servers' tools, then write the lock again with `cardgen mcp lock`\n",
        ),
    ] {
        folder(dir.path(), args);
        let (ok, out, err) = cardgen(&["mcp", "lock", "--check"], dir.path());
        assert!(!ok, "{args:?}: {out}");
        assert_eq!(err, expected, "{args:?}");
        // The check writes nothing.
        assert_eq!(
            std::fs::read_to_string(dir.path().join("hookwire.lock")).unwrap(),
            text
        );
    }
}
