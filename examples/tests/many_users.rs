//! The `many_users` example as docs/tools.md shows it: one agent value serves
//! three concurrent sessions; each deposit lands on its own user's balance,
//! through the agent's one dependency and each session's typed user.
#![allow(clippy::unwrap_used)]

#[test]
fn each_session_deposits_for_its_own_user() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_many_users"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "alice's balance is 10",
        "bob's balance is 20",
        "carol's balance is 30",
        r#"== the ledger the dependency holds: {"alice": 10, "bob": 20, "carol": 30}"#,
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
}
