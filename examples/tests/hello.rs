//! The README's hello agent runs offline and shows the hook's work.
#![allow(clippy::unwrap_used)]

#[test]
fn the_hello_agent_runs_its_tool_through_its_hook() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hello"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "user: What is 41 + 1?");
    assert!(
        lines[2].starts_with("step 0 tool add_one (function) {\"x\":41} -> allowed [hooks: tag] (")
            && lines[2].ends_with("): 42 [checked]"),
        "{text}"
    );
    assert_eq!(lines.last(), Some(&"completed: The answer is 42."));
}
