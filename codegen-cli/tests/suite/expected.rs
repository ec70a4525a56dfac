//! Whole generated files against reviewed expected files, as prost-build
//! tests its code generator: what the emitter writes for the good cards and
//! for specs built here, and what `cardgen explain` prints, each compared
//! byte for byte with a file under `tests/expected/`.
//!
//! The expected files change only on purpose: after a change to the
//! generator, run
//!
//! ```text
//! HOOKWIRE_BLESS=1 cargo test -p hookwire-codegen --test suite expected
//! ```
//!
//! which rewrites them, then read every line of `git diff
//! codegen-cli/tests/expected` before committing it. Without
//! `HOOKWIRE_BLESS` a difference (or a missing or extra file) fails the
//! test and names the first line that differs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use hookwire_codegen::cards::{self, BuildOptions};
use hookwire_codegen::emit::{self, EmitOptions};
use hookwire_codegen::spec::{
    AgentRef, AgentSpec, EventHookAction, EventHookSpec, FailurePolicy, Frequency, HookEvent,
    HookKind, HookRef, LifecycleRef, McpToolsSpec, RefreshCondition, ToolCallInjection, ToolRef,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn bless() -> bool {
    std::env::var_os("HOOKWIRE_BLESS").is_some_and(|v| v != "0")
}

/// Compares the files of `dir` (under `tests/expected/`, each named as the
/// generated file plus `.expected`, so that no tool takes them for source)
/// with `actual` (name, content): the same names, the same bytes. With
/// `HOOKWIRE_BLESS` it writes `actual` there instead (and removes files no
/// longer made).
fn check_dir(dir: &str, actual: &[(String, String)]) {
    let actual: Vec<(String, String)> = actual
        .iter()
        .map(|(name, content)| (format!("{name}.expected"), content.clone()))
        .collect();
    let actual = actual.as_slice();
    let dir = root().join("expected").join(dir);
    let on_disk: BTreeSet<String> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let made: BTreeSet<String> = actual.iter().map(|(n, _)| n.clone()).collect();
    if bless() {
        fs::create_dir_all(&dir).unwrap();
        for stale in on_disk.difference(&made) {
            fs::remove_file(dir.join(stale)).unwrap();
        }
        for (name, content) in actual {
            fs::write(dir.join(name), content).unwrap();
        }
        return;
    }
    assert_eq!(
        on_disk,
        made,
        "the files under {} differ from the generated ones; rerun with HOOKWIRE_BLESS=1 and review `git diff`",
        dir.display()
    );
    for (name, content) in actual {
        let path = dir.join(name);
        let expected = fs::read_to_string(&path).unwrap();
        if expected != *content {
            let line = expected
                .lines()
                .zip(content.lines())
                .position(|(e, a)| e != a)
                .unwrap_or_else(|| expected.lines().count().min(content.lines().count()));
            panic!(
                "{} differs from the generated file at line {}:\n  expected: {:?}\n  actual:   {:?}\nrerun with HOOKWIRE_BLESS=1 and review `git diff` if the change is meant",
                path.display(),
                line + 1,
                expected.lines().nth(line).unwrap_or("<end of file>"),
                content.lines().nth(line).unwrap_or("<end of file>"),
            );
        }
    }
}

fn good_cards() -> cards::Cards {
    cards::load_dir(&root().join("cards/good")).unwrap_or_else(|errors| panic!("{errors:#?}"))
}

#[test]
fn the_good_cards_generate_the_expected_files() {
    let loaded = good_cards();
    // Relative `#[path]`s from the expected folder itself, so the files do
    // not depend on where the repository is.
    let out = root().join("expected/cards");
    let files = cards::generate(&loaded, &BuildOptions::new(&out)).unwrap();
    let actual: Vec<(String, String)> = files.into_iter().map(|f| (f.name, f.content)).collect();
    check_dir("cards", &actual);
}

/// `(<card name>.<ext>, what `f` gives for it)` for each good card.
fn per_card(
    loaded: &cards::Cards,
    ext: &str,
    f: impl Fn(&cards::Cards, &str) -> Option<String>,
) -> Vec<(String, String)> {
    loaded
        .cards
        .iter()
        .map(|card| {
            let name = &card.spec.name;
            (format!("{name}.{ext}"), f(loaded, name).unwrap())
        })
        .collect()
}

#[test]
fn explain_shows_each_good_card_as_the_runtime_runs_it() {
    let loaded = good_cards();
    let actual = per_card(&loaded, "txt", cards::explain);
    // The injection of PMO-orchestrator (`toolset_name: time`) is called
    // `time__<tool>` by the runtime (`RequestHook::resolve_name`), so that
    // is the name `explain` shows.
    let pmo = &actual
        .iter()
        .find(|(n, _)| n == "PMO-orchestrator.txt")
        .unwrap()
        .1;
    assert!(pmo.contains("time__"), "{pmo}");
    check_dir("explain", &actual);
}

/// `cardgen explain --json` of each good card: its policy document, which
/// the generated agent's `policy().to_json()` gives too (the test of
/// `tests/tests/suite/cards_e2e/policy.rs` compares them).
#[test]
fn explain_json_gives_each_good_cards_policy_document() {
    let loaded = good_cards();
    let actual = per_card(&loaded, "json", cards::explain_json);
    check_dir("policy", &actual);
    // The binary prints the same document.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cardgen"))
        .args(["explain", "--json"])
        .arg(root().join("cards/good"))
        .arg("shop")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let shop = &actual.iter().find(|(n, _)| n == "shop.json").unwrap().1;
    assert_eq!(String::from_utf8(out.stdout).unwrap(), *shop);
}

fn emit_file(spec: &AgentSpec) -> String {
    let tokens = emit::agent(spec, &EmitOptions::new(syn::parse_quote!(::hookwire)))
        .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
    emit::format_file(tokens, &format!("tests/suite/expected.rs: {}", spec.name)).unwrap()
}

/// Hooks of every kind around function tools: an around hook for all,
/// a matched pre hook, a fail-open post hook with a timeout, a tool-level
/// hook, and a child agent.
fn hooks_spec() -> AgentSpec {
    let mut spec = AgentSpec::new("calc")
        .with_instruction("Add numbers.")
        .with_function_tool(
            ToolRef::new("crate::tools::AddOne", "add_one")
                .with_hook(HookRef::new("crate::hooks::Trace").with_label("trace")),
        )
        .with_function_tool(ToolRef::new("crate::tools::ReadFile", "read_file"))
        .with_tool_hook(HookRef::new("crate::hooks::Audit"))
        .with_tool_hook(
            HookRef::new("crate::hooks::Clamp")
                .with_kind(HookKind::Pre)
                .with_match("add_*")
                .unwrap(),
        )
        .with_tool_hook(
            HookRef::new("crate::hooks::Redact")
                .with_kind(HookKind::Post)
                .with_policy(FailurePolicy::FailOpen)
                .with_timeout_ms(250),
        )
        .with_agent({
            let mut child = AgentRef::new("Helper");
            child.ty = Some("crate::Helper".to_owned());
            child
        });
    spec.settings.max_parallel = Some(2);
    spec
}

/// Nine tools: dispatch by perfect hash instead of a `match`.
fn many_tools_spec() -> AgentSpec {
    (0..9).fold(AgentSpec::new("wide"), |spec, i| {
        spec.with_function_tool(ToolRef::new(
            format!("crate::tools::T{i}"),
            format!("tool_{i}"),
        ))
    })
}

/// MCP servers: tools found at run time, an agent-level hook for them, a
/// matched lifecycle hook and a request-start injection.
fn servers_spec() -> AgentSpec {
    let mut spec = AgentSpec::new("desk")
        .with_instruction("Answer with the time.")
        .with_function_tool(ToolRef::new("crate::tools::Echo", "echo"))
        .with_tool_hook(
            HookRef::new("crate::hooks::Audit")
                .with_match("source:mcp")
                .unwrap(),
        );
    spec.servers = vec!["time".to_owned()];
    spec.mcp_tools = vec![McpToolsSpec {
        server: "time".to_owned(),
        globs: vec!["get_*".to_owned()],
    }];
    let mut lifecycle = LifecycleRef::new("crate::hooks::NoShell");
    lifecycle.matcher = hookwire_codegen::spec::Matcher::parse("time__shell|time__exec").unwrap();
    spec.lifecycle_hooks.push(lifecycle);
    spec.hooks.push(EventHookSpec {
        event: HookEvent::OnRequestStart,
        name: Some("clock".to_owned()),
        timeout_sec: Some(5),
        action: EventHookAction::ToolCall(ToolCallInjection {
            toolset_name: Some("time".to_owned()),
            tool_name: "get_current_time".to_owned(),
            arguments: r#"{"timezone": "UTC"}"#.to_owned(),
            frequency: Frequency::Always,
            refresh_condition: Some(RefreshCondition::Ttl { ttl_minutes: 10 }),
        }),
        span: None,
    });
    spec
}

#[test]
fn the_emitter_generates_the_expected_files_for_specs_built_in_code() {
    let actual: Vec<(String, String)> = [hooks_spec(), many_tools_spec(), servers_spec()]
        .iter()
        .map(|spec| (format!("{}.rs", spec.name), emit_file(spec)))
        .collect();
    check_dir("emit", &actual);
}
