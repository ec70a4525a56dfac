//! The hello example (`examples/src/bin/hello.rs`) runs offline and shows the hook's work.
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

/// `--otel` prints the run's OpenTelemetry spans (stdout exporter), each
/// as it ends: the tool call, the model calls, the run last.
#[test]
fn hello_with_otel_prints_the_runs_genai_spans() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hello"))
        .arg("--otel")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("\tName         : "))
        .collect();
    assert_eq!(
        names,
        [
            "chat scripted",
            "execute_tool add_one",
            "hookwire.step",
            "chat scripted",
            "hookwire.step",
            "invoke_agent hello",
        ],
        "{text}"
    );
    assert!(
        text.contains(r#"gen_ai.tool.call.id: String(Owned("call_0_0"))"#),
        "{text}"
    );
    assert!(text.contains("completed: The answer is 42."), "{text}");
}
