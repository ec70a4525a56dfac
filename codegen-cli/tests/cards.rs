//! AgentCards: every checked-in bad card gives the expected error at the
//! expected file and line, and `build` leaves the output folder untouched;
//! good cards build deterministically and a rebuild writes nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookwire_codegen::cards::{self, BuildError, BuildOptions};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cards")
}

/// Writes a file a test's cards refer to.
fn put(path: impl AsRef<Path>, text: impl AsRef<[u8]>) {
    let path = path.as_ref();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

/// (case folder, file the error is in, line, part of the message).
const BAD: &[(&str, &str, usize, &str)] = &[
    (
        "yaml_syntax",
        "a.md",
        3,
        "invalid YAML: did not find expected ',' or ']'",
    ),
    (
        "unclosed_frontmatter",
        "a.md",
        1,
        "unclosed frontmatter: no closing `---` line",
    ),
    ("unknown_field", "a.md", 2, "unknown field `nmae` in a card"),
    (
        "unknown_field_far",
        "a.md",
        3,
        "unknown field `turns` in a card",
    ),
    (
        "unknown_server",
        "a.md",
        5,
        "unknown server `tme`: `hookwire.yaml` does not declare it",
    ),
    (
        "wrong_type",
        "a.md",
        3,
        "`max_parallel` must be a positive integer, found a string",
    ),
    (
        "zero_max_parallel",
        "a.md",
        3,
        "`max_parallel` must be greater than 0, found 0",
    ),
    (
        "negative_timeout",
        "a.yaml",
        3,
        "`child_timeout_sec` must be greater than 0, found -5",
    ),
    (
        "zero_display",
        "a.yml",
        2,
        "`max_display_instances` must be greater than 0, found 0",
    ),
    ("empty_name", "a.md", 2, "`name` must not be empty"),
    ("duplicate_names", "b.md", 3, "duplicate agent name `twin`"),
    (
        "unknown_agent",
        "a.md",
        4,
        "unknown agent `NY-Project-Manger`",
    ),
    ("cycle", "a.md", 3, "agents form a cycle: a -> b -> c -> a"),
    (
        "self_reference",
        "a.md",
        3,
        "agent `a` lists itself in `agents`",
    ),
    (
        "not_rs_file",
        "a.md",
        4,
        "the file part `tools.py` must be a `.rs` file",
    ),
    (
        "no_colon",
        "a.md",
        4,
        "malformed reference `tools.rs`: expected `file.rs:function`",
    ),
    ("missing_file", "a.md", 4, "file `tools.rs` not found"),
    (
        "dotdot",
        "a.md",
        4,
        "`..` in `../tools.rs:add_one`: referenced files must be inside the cards folder",
    ),
    ("absolute", "a.md", 4, "absolute path `/etc/tools.rs`"),
    (
        "symlink_out",
        "a.md",
        4,
        "`evil.rs` lies outside the cards folder",
    ),
    (
        "fn_not_found",
        "a.md",
        4,
        "no top-level function `add_on` in `tools.rs`",
    ),
    (
        "nested_fn",
        "a.md",
        4,
        "no top-level function `inner` in `tools.rs`",
    ),
    ("rs_parse_error", "tools.rs", 6, "Rust file does not parse"),
    ("card_not_utf8", "a.md", 3, "card is not valid UTF-8"),
    ("rs_not_utf8", "tools.rs", 2, "Rust file is not valid UTF-8"),
    (
        "bad_tool_signature",
        "tools.rs",
        4,
        "parameter `x` of tool `add_one` is a reference",
    ),
    (
        "bad_hook_signature",
        "hooks.rs",
        5,
        "around hook `audit` is missing its `next` parameter",
    ),
    ("private_fn", "tools.rs", 4, "function `add_one` is private"),
    (
        "tool_without_docs",
        "tools.rs",
        3,
        "tool `add_one` has no description",
    ),
    (
        "body_and_instruction",
        "a.md",
        3,
        "the card has both an `instruction:` field and a body",
    ),
    (
        "unknown_event",
        "a.md",
        4,
        "unknown event `on_start` (expected one of: on_request_start, on_completion",
    ),
    (
        "event_without_tool_call",
        "a.md",
        4,
        "`kind: tool_call` hooks cannot fire at `step_start`",
    ),
    (
        "missing_tool_name",
        "a.md",
        4,
        "`kind: tool_call` hook is missing `tool_name`",
    ),
    (
        "zero_ttl",
        "a.md",
        8,
        "`ttl_minutes` must be greater than 0, found 0",
    ),
    (
        "bad_history_source",
        "a.md",
        3,
        "unknown history_source `orchestator`",
    ),
    (
        "bad_match_regex",
        "a.md",
        5,
        "invalid `match`: invalid regex `(unclosed`",
    ),
    (
        "bad_on_failure",
        "a.md",
        5,
        "unknown on_failure `sometimes`",
    ),
    (
        "unknown_hook_field",
        "a.md",
        5,
        "unknown field `matcher` in a tool hook",
    ),
    (
        "env_unset",
        "a.md",
        3,
        "environment variable `HOOKWIRE_SURELY_UNSET_VAR` is not set",
    ),
    (
        "bool_type",
        "a.md",
        3,
        "`default` must be `true` or `false`, found a string",
    ),
    (
        "unsupported_type",
        "a.md",
        2,
        "unsupported card type `chain` (supported: agent)",
    ),
    (
        "two_defaults",
        "b.md",
        3,
        "more than one default agent: `a` and `b`",
    ),
    (
        "bad_glob",
        "a.md",
        5,
        "invalid tool filter: invalid glob `read_[x`",
    ),
    (
        "duplicate_tool",
        "a.md",
        5,
        "duplicate tool name `add_one` in agent `a`",
    ),
    // Lifecycle hooks under `hooks:` (`file.rs:Type`).
    (
        "lifecycle_type_not_found",
        "a.md",
        4,
        "no top-level struct, enum or type alias `Recoder` in `lifecycle.rs`",
    ),
    (
        "lifecycle_is_function",
        "a.md",
        4,
        "`audit` in `lifecycle.rs` is a function, not a type",
    ),
    (
        "lifecycle_private_type",
        "lifecycle.rs",
        6,
        "lifecycle hook `Recorder` is private",
    ),
    (
        "lifecycle_no_default",
        "lifecycle.rs",
        6,
        "lifecycle hook `Recorder` cannot be built: the generated code calls `Default::default()`",
    ),
    (
        "lifecycle_not_implemented",
        "lifecycle.rs",
        5,
        "`Recorder` does not implement `LifecycleHooks` in `lifecycle.rs`",
    ),
    (
        "lifecycle_generic",
        "lifecycle.rs",
        6,
        "lifecycle hook `Recorder` is generic, but a card names it without parameters",
    ),
    (
        "lifecycle_bad_match",
        "a.md",
        5,
        "invalid `match`: invalid regex `(unclosed`",
    ),
    (
        "match_selects_no_tool",
        "a.md",
        6,
        "hook `hooks.rs:no_shell` with match `shel` selects no tool: it does not match any tool of agent `ops`; did you mean `shell`?",
    ),
    (
        "lifecycle_match_selects_no_tool",
        "a.md",
        6,
        "hook `lifecycle.rs:Recorder` with match `source:mcp` selects no tool",
    ),
    (
        "lifecycle_unknown_field",
        "a.md",
        5,
        "unknown field `matcher` in a lifecycle hook",
    ),
    (
        "lifecycle_malformed",
        "a.md",
        4,
        "malformed reference `lifecycle.rs:Not-A-Type`: `Not-A-Type` is not a Rust type name",
    ),
    // Names: one rule (a tool name for the model APIs, which also keeps
    // them out of the generated code's syntax), and no two agents
    // declaring the same Rust name.
    (
        "name_line_break",
        "a.md",
        2,
        "agent name `calc\\nfn evil() {}` is not a valid tool name",
    ),
    (
        "name_space",
        "a.md",
        2,
        "agent name `my agent` is not a valid tool name: ` ` is not",
    ),
    (
        "name_slash",
        "a.md",
        2,
        "agent name `team/calc` is not a valid tool name: `/` is not",
    ),
    (
        "name_too_long",
        "a.md",
        2,
        "is too long: its tool name `agent__aaaa",
    ),
    (
        "name_from_file",
        "my agent.md",
        1,
        "agent name `my agent` is not a valid tool name: ` ` is not an ASCII letter, digit, `_` or `-` (the agent is named after its file)",
    ),
    (
        "tool_name_too_long",
        "a.md",
        4,
        "tool name `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx` is too long for a tool name: 65 characters, at most 64",
    ),
    (
        "type_name_collision",
        "b.md",
        2,
        "agent `calc-tools` gives the same Rust name `CalcTools` as agent `calc`'s tool-set type",
    ),
    (
        "module_collision",
        "b.md",
        2,
        "agent `crate-agent` gives the same Rust name `crate_agent` as agent `crate`'s module",
    ),
    (
        "child_twice",
        "a.md",
        3,
        "agent `b` is listed twice in `agents`",
    ),
    (
        "rs_too_deep",
        "tools.rs",
        6,
        "Rust file nests too deeply here: more than 100 levels of expressions or types",
    ),
    // What `check` passed and the compiler then rejected.
    (
        "pub_crate_fn",
        "tools.rs",
        4,
        "function `add_one` is only `pub(crate)`, but the code generated for the card names it from another module",
    ),
    (
        "pub_self_fn",
        "tools.rs",
        4,
        "function `add_one` is only `pub(self)`",
    ),
    (
        "lifecycle_restricted",
        "lifecycle.rs",
        5,
        "lifecycle hook `Recorder` is only `pub(super)`",
    ),
    (
        "cfg_fn",
        "tools.rs",
        4,
        "function `add_one` is behind `#[cfg(..)]`, but the code generated for the card names it unconditionally",
    ),
    (
        "cfg_file",
        "tools.rs",
        2,
        "the file of function `add_one` is behind `#[cfg(..)]`",
    ),
    (
        "dial_unknown_tool",
        "a.md",
        7,
        "`tool_name: add_on` names no tool of agent `a`",
    ),
    (
        "dial_unknown_toolset",
        "a.md",
        7,
        "`toolset_name: memory_server` is not a server of agent `a`",
    ),
    // `deps:` and the `Dep<T>` parameters of function tools: what the
    // compiler would reject, reported at the parameter.
    (
        "dep_not_provided",
        "tools.rs",
        5,
        "tool `lookup` takes `Dep<Db>`, but the agent's dependencies `AppDeps` (`deps: deps.rs:AppDeps`) do not provide `Db`",
    ),
    (
        "dep_without_deps",
        "tools.rs",
        5,
        "tool `lookup` takes `Dep<Db>`, but its card declares no `deps:`",
    ),
    (
        "deps_not_clone",
        "tools.rs",
        4,
        "tool `whoami` takes `Dep<super::deps_rs::AppDeps>`, the agent's dependencies themselves, which it gets as a clone, but `AppDeps` neither derives nor implements `Clone` in `deps.rs`",
    ),
    (
        "deps_type_not_found",
        "a.md",
        3,
        "no top-level struct, enum or type alias `AppDep` in `deps.rs`",
    ),
    (
        "deps_private_type",
        "deps.rs",
        5,
        "dependency type `AppDeps` is private, but the code generated for the card names it from another module",
    ),
    (
        "deps_generic",
        "deps.rs",
        5,
        "dependency type `AppDeps` is generic, but a card names it without parameters",
    ),
    (
        "deps_unknown_field",
        "a.md",
        3,
        "unknown field `dep` in a card",
    ),
];

/// Help lines that must be there (did-you-mean and friends).
const HELP: &[(&str, &str)] = &[
    ("unknown_server", "did you mean `time`?"),
    ("unknown_field", "did you mean `name`?"),
    (
        "unknown_field_far",
        "the fields of a card are: type, name, instruction, description, deps, default, servers, \
         tools, function_tools, agents, tool_hooks, hooks, history_source, history_merge_target, \
         max_parallel, child_timeout_sec, max_display_instances, model, use_history, \
         tool_input_schema",
    ),
    ("unknown_agent", "did you mean `NY-Project-Manager`?"),
    ("fn_not_found", "did you mean `tools.rs:add_one`?"),
    ("bad_history_source", "did you mean `orchestrator`?"),
    ("unknown_hook_field", "did you mean `match`?"),
    ("private_fn", "declare it `pub fn add_one`"),
    (
        "lifecycle_type_not_found",
        "did you mean `lifecycle.rs:Recorder`?",
    ),
    ("lifecycle_private_type", "declare it `pub struct Recorder`"),
    (
        "lifecycle_no_default",
        "add `#[derive(Default)]` to `Recorder`",
    ),
    ("lifecycle_unknown_field", "did you mean `match`?"),
    ("pub_crate_fn", "declare it `pub fn add_one`"),
    ("dial_unknown_tool", "did you mean `add_one`?"),
    (
        "dep_not_provided",
        "add `impl hookwire::FromRef<AppDeps> for Db` to deps.rs, or declare `deps: deps.rs:Db`",
    ),
    (
        "dep_without_deps",
        "declare the type the agent is built from in the card, for example `deps: deps.rs:AppDeps`, with `impl hookwire::FromRef<AppDeps> for Db` in deps.rs",
    ),
    ("deps_not_clone", "add `#[derive(Clone)]` to `AppDeps`"),
    ("deps_type_not_found", "did you mean `deps.rs:AppDeps`?"),
    ("deps_private_type", "declare it `pub struct AppDeps`"),
    ("deps_unknown_field", "did you mean `deps`?"),
];

/// Every file under `dir` with its bytes and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = std::fs::metadata(&path).unwrap();
        out.insert(
            path.clone(),
            (std::fs::read(&path).unwrap(), meta.modified().unwrap()),
        );
    }
    out
}

/// An output folder that already holds a generated file and a user file.
fn prepared_out() -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    put(
        out.path().join("mod.rs"),
        "// @generated by cardgen. Do not edit.\n// old\n",
    );
    put(out.path().join("notes.txt"), "mine");
    out
}

#[test]
fn every_bad_card_is_reported_at_its_file_and_line_and_nothing_is_written() {
    assert!(BAD.len() >= 25);
    for (case, file, line, message) in BAD {
        let dir = fixtures().join("bad").join(case);
        let out = prepared_out();
        let before = snapshot(out.path());
        let result = cards::build(&dir, &BuildOptions::new(out.path()));
        let Err(BuildError::Cards(diags)) = result else {
            panic!("{case}: expected card errors, got {:?}", result.map(|_| ()));
        };
        let found = diags.iter().find(|d| d.message.contains(message));
        let Some(d) = found else {
            panic!(
                "{case}: no error containing {message:?} in:\n{}",
                render(&diags)
            );
        };
        assert_eq!(d.path, dir.join(file), "{case}: file");
        assert_eq!(d.line, *line, "{case}: line of {message:?}\n{d}");
        let rendered = d.to_string();
        let head = format!("{}:{}:{}: error: ", dir.join(file).display(), line, d.col);
        assert!(rendered.starts_with(&head), "{case}: {rendered}");
        assert!(rendered.contains('^'), "{case}: caret missing\n{rendered}");
        assert_eq!(
            snapshot(out.path()),
            before,
            "{case}: the output folder changed"
        );
    }
}

#[test]
fn help_lines_suggest_the_fix() {
    for (case, help) in HELP {
        let diags = cards::load_dir(&fixtures().join("bad").join(case)).unwrap_err();
        assert!(
            diags.iter().any(|d| d.help.as_deref() == Some(*help)),
            "{case}: no help {help:?} in:\n{}",
            render(&diags)
        );
    }
}

#[test]
fn every_error_of_a_card_is_collected_in_source_order() {
    let diags = cards::load_dir(&fixtures().join("bad/many_errors")).unwrap_err();
    let lines: Vec<(usize, &str)> = diags.iter().map(|d| (d.line, d.message.as_str())).collect();
    assert_eq!(
        lines,
        [
            (3, "`max_parallel` must be greater than 0, found 0"),
            (4, "unknown field `modle` in a card"),
            (5, "`use_history` must be `true` or `false`, found a string"),
        ]
    );
}

#[test]
fn errors_in_several_cards_are_all_reported() {
    // The `bad` folder itself is not a cards folder, so use two cases at once:
    // copy them into one folder.
    let dir = tempfile::tempdir().unwrap();
    for case in ["unknown_field", "wrong_type"] {
        let src = fixtures().join("bad").join(case).join("a.md");
        std::fs::copy(src, dir.path().join(format!("{case}.md"))).unwrap();
    }
    let diags = cards::load_dir(dir.path()).unwrap_err();
    assert_eq!(diags.len(), 2, "{}", render(&diags));
}

fn render(diags: &[cards::Diagnostic]) -> String {
    diags.iter().map(ToString::to_string).collect()
}

#[test]
fn build_is_deterministic_and_a_rebuild_writes_nothing() {
    let good = fixtures().join("good");
    let out = tempfile::tempdir().unwrap();
    let (_, first) = cards::build(&good, &BuildOptions::new(out.path())).unwrap();
    assert_eq!(first.written.len(), 7, "{first:?}");
    let snap = snapshot(out.path());

    std::thread::sleep(std::time::Duration::from_millis(20));
    let (_, second) = cards::build(&good, &BuildOptions::new(out.path())).unwrap();
    assert!(second.written.is_empty(), "{second:?}");
    assert_eq!(second.unchanged.len(), 7);
    assert_eq!(snapshot(out.path()), snap, "bytes and mtimes unchanged");

    // Same input, same bytes, in another folder.
    let other = tempfile::tempdir().unwrap();
    let (_, _) = cards::build(&good, &BuildOptions::new(other.path())).unwrap();
    for (path, (bytes, _)) in &snap {
        let twin = other.path().join(path.file_name().unwrap());
        assert_eq!(&std::fs::read(twin).unwrap(), bytes, "{}", path.display());
    }
}

#[test]
fn generated_files_are_headed_formatted_and_include_the_referenced_sources() {
    let good = fixtures().join("good");
    let loaded = cards::load_dir(&good).unwrap();
    let out = tempfile::tempdir().unwrap();
    let files = cards::generate(&loaded, &BuildOptions::new(out.path())).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "london_project_manager.rs",
            "ny_project_manager.rs",
            "pmo_orchestrator.rs",
            "relay_desk.rs",
            "shop.rs",
            "__rust_refs.rs",
            "mod.rs"
        ]
    );
    let pmo = &files[2].content;
    assert!(pmo.starts_with("// @generated by cardgen from PMO-orchestrator.md. Do not edit.\n"));
    // The referenced files and the adapters of their functions are declared
    // once, in `__rust_refs.rs`; each card's module imports what it uses.
    let refs = &files[5].content;
    assert!(refs.starts_with("// @generated by cardgen. Do not edit.\n"));
    assert!(refs.contains("#[path = \"../"), "{refs}");
    assert_eq!(refs.matches("mod tools_rs;").count(), 1, "{refs}");
    assert_eq!(
        refs.matches("pub struct AddOneTool {}").count(),
        1,
        "{refs}"
    );
    assert!(
        pmo.contains("use super::__rust_refs::AddOneTool;\n"),
        "{pmo}"
    );
    for card in &files[..5] {
        assert!(!card.content.contains("mod tools_rs;"), "{}", card.name);
        assert!(
            !card.content.contains("pub struct AddOneTool"),
            "{}",
            card.name
        );
    }
    let module = &files[6].content;
    assert!(module.contains("pub mod __rust_refs;\n"), "{module}");
    assert!(!module.contains("#[path"), "relative output: {module}");
    assert!(pmo.contains("impl ::hookwire::agent::AgentDecl for PmoOrchestrator"));
    // Chains resolved at codegen time: audit, then the fail-open clamp.
    assert!(pmo.contains("::hookwire::Guarded<ClampHook>"), "{pmo}");
    // Formatting is prettyplease's: parse and format again, same text.
    let body = pmo.split_once("\n\n").unwrap().1;
    let reparsed = prettyplease::unparse(&syn::parse_file(body).unwrap());
    assert_eq!(reparsed, body);
}

#[test]
fn a_removed_card_removes_its_generated_file_only() {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "NY-Project-Manager.md",
        "London-Project-Manager.yaml",
        "tools.rs",
        "lifecycle.rs",
    ] {
        std::fs::copy(fixtures().join("good").join(f), dir.path().join(f)).unwrap();
    }
    let out = prepared_out();
    cards::build(dir.path(), &BuildOptions::new(out.path())).unwrap();
    std::fs::remove_file(dir.path().join("London-Project-Manager.yaml")).unwrap();
    let (_, report) = cards::build(dir.path(), &BuildOptions::new(out.path())).unwrap();
    assert_eq!(
        report.removed,
        [out.path().join("london_project_manager.rs")]
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn explain_prints_each_chain_in_run_order() {
    let loaded = cards::load_dir(&fixtures().join("good")).unwrap();
    let text = cards::explain(&loaded, "PMO-orchestrator").unwrap();
    let add_one = text.split("\ntool add_one").nth(1).unwrap();
    let add_one = add_one.split("\n\n").next().unwrap();
    assert_eq!(
        add_one,
        " (function, tools.rs:add_one)\n  1. hooks.rs:audit_hook [match *, fail_closed]\n  2. hooks.rs:clamp [match add_*, fail_open, timeout 500 ms]\n  3. hooks.rs:tag [match *, fail_closed]\n  -> add_one"
    );
    assert!(text.contains(
        "(not applied: hooks.rs:clamp [match add_*, fail_open, timeout 500 ms] does not match)"
    ));
    assert!(cards::explain(&loaded, "nobody").is_none());
}

#[test]
fn explain_ends_a_chain_with_the_tools_own_hooks_approval_and_error_mapping() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path().join("tools.rs"),
        "/// Writes.\n#[hookwire::tool(hooks = [no_secrets, redact(on_failure = \"open\")], needs_approval = checks::outside_tmp, on_error = explain)]\npub fn write_file(path: String) -> String { path }\n",
    );
    put(
        dir.path().join("hooks.rs"),
        "use hookwire::{Next, Outcome, ToolArgs, ToolContext};\n/// Audits.\npub async fn audit<N: hookwire::Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome { next.run(cx, args).await }\n",
    );
    put(
        dir.path().join("w.md"),
        "---\nname: w\nfunction_tools: [tools.rs:write_file]\ntool_hooks: [hooks.rs:audit]\n---\nWrite.\n",
    );
    let loaded = cards::load_dir(dir.path()).unwrap();
    let text = cards::explain(&loaded, "w").unwrap();
    let chain = text.split("\ntool write_file").nth(1).unwrap();
    assert_eq!(
        chain.split("\n\n").next().unwrap(),
        " (function, tools.rs:write_file)\n  1. hooks.rs:audit [match *, fail_closed]\n  2. no_secrets [the tool's own]\n  3. redact(on_failure = \"open\") [the tool's own]\n  4. needs_approval = checks::outside_tmp [the tool's own]\n  5. on_error = explain [the tool's own]\n  -> write_file\n"
    );
}

#[test]
fn graph_draws_agents_tools_hooks_and_agent_edges() {
    let loaded = cards::load_dir(&fixtures().join("good")).unwrap();
    let mermaid = cards::graph(&loaded, cards::GraphFormat::Mermaid);
    assert!(mermaid.starts_with("flowchart LR\n"));
    assert!(mermaid.contains(
        "agent_PMO_orchestrator -->|\"agent__NY-Project-Manager\"| agent_NY_Project_Manager"
    ));
    assert!(mermaid.contains("hook_hooks_rs_clamp -->|\"hook 2\"| tool_PMO_orchestrator_add_one"));
    let dot = cards::graph(&loaded, cards::GraphFormat::Dot);
    assert!(dot.starts_with("digraph agents {"));
    assert!(dot.contains("agent_PMO_orchestrator -> agent_London_Project_Manager [label=\"agent__London-Project-Manager\"];"));
}

#[test]
fn graph_node_ids_are_plain_identifiers_and_one_per_node() {
    // An agent whose name has a hyphen, and two hooks from files whose
    // names clean up to the same id (`a-b.rs`, `a_b.rs`).
    let dir = tempfile::tempdir().unwrap();
    let good = fixtures().join("good");
    for (from, to) in [
        ("tools.rs", "tools.rs"),
        ("hooks.rs", "a-b.rs"),
        ("hooks.rs", "a_b.rs"),
    ] {
        std::fs::copy(good.join(from), dir.path().join(to)).unwrap();
    }
    let card = "---\nname: PMO-x\nfunction_tools: [tools.rs:add_one]\n\
                tool_hooks: [a-b.rs:clamp, a_b.rs:clamp]\n---\nHi.\n";
    put(dir.path().join("pmo.md"), card);
    let loaded = cards::load_dir(dir.path()).unwrap();
    let dot = cards::graph(&loaded, cards::GraphFormat::Dot);
    let plain = |id: &str| {
        id.starts_with(|c: char| c.is_ascii_alphabetic())
            && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let mut node_ids = Vec::new();
    for line in dot.lines().map(str::trim) {
        if let Some((from, rest)) = line.split_once(" -> ") {
            let to = rest.split_once(' ').map_or(rest, |(to, _)| to);
            assert!(plain(from) && plain(to), "{line}\n{dot}");
        } else if let Some((id, _)) = line.split_once(" [label=") {
            assert!(plain(id), "{line}\n{dot}");
            node_ids.push(id.to_owned());
        }
    }
    // The agent, its tool and two distinct hooks.
    assert_eq!(
        node_ids,
        [
            "agent_PMO_x",
            "tool_PMO_x_add_one",
            "hook_a_b_rs_clamp",
            "hook_a_b_rs_clamp_2"
        ],
        "{dot}"
    );
    assert!(
        dot.contains("hook_a_b_rs_clamp [label=\"a-b.rs:clamp\""),
        "{dot}"
    );
    assert!(
        dot.contains("hook_a_b_rs_clamp_2 [label=\"a_b.rs:clamp\""),
        "{dot}"
    );
}

#[test]
fn graph_labels_keep_quotes_and_line_breaks_out_of_the_syntax() {
    // Agent names are plain (the name rule); a server name is free text.
    let dir = tempfile::tempdir().unwrap();
    let card = "---\nname: a\nservers: [\"Caf\u{e9} \\\"Bot\\\"\\nv2\"]\n---\nHi.\n";
    put(dir.path().join("a.md"), card);
    let loaded = cards::load_dir(dir.path()).unwrap();
    let dot = cards::graph(&loaded, cards::GraphFormat::Dot);
    assert!(
        dot.contains(" [label=\"mcp: Caf\u{e9} \\\"Bot\\\"\\nv2\", shape="),
        "{dot}"
    );
    let mermaid = cards::graph(&loaded, cards::GraphFormat::Mermaid);
    assert!(
        mermaid.contains("[(\"mcp: Caf\u{e9} 'Bot' v2\")]\n"),
        "{mermaid}"
    );
}

#[test]
fn schema_lists_every_field_and_rejects_others() {
    let schema = cards::schema();
    let props = schema["properties"].as_object().unwrap();
    let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    names.sort_unstable();
    let mut fields = cards::FIELDS.to_vec();
    fields.sort_unstable();
    assert_eq!(names, fields);
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn env_references_are_resolved_with_defaults() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path().join("a.md"),
        "---\nname: ${AGENT_NAME}\nmodel: ${MODEL:-scripted}\n---\nHi.\n",
    );
    let env = |name: &str| (name == "AGENT_NAME").then(|| "from-env".to_owned());
    let loaded = cards::load_dir_with_env(dir.path(), &env).unwrap();
    assert_eq!(loaded.cards[0].spec.name, "from-env");
    assert_eq!(loaded.cards[0].spec.model.as_deref(), Some("scripted"));
}

#[test]
fn parallel_generation_gives_the_same_files_as_serial() {
    let dir = many_cards(250);
    let loaded = cards::load_dir(dir.path()).unwrap();
    let opts = BuildOptions::new(dir.path().join("out"));
    let serial = cards::generate(&loaded, &opts).unwrap();
    let parallel = cards::generate_parallel(dir.path(), &loaded, &opts).unwrap();
    assert_eq!(serial.len(), 252);
    assert_eq!(serial, parallel);
}

#[test]
fn lifecycle_hooks_lower_in_declared_order_next_to_request_hooks() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path().join("lifecycle.rs"),
        r#"//! Lifecycle hooks.
use hookwire::agent::lifecycle::LifecycleHooks;

/// Built by a hand-written `Default`.
pub struct Audit {
    prefix: &'static str,
}

impl Default for Audit {
    fn default() -> Self {
        Self { prefix: "audit" }
    }
}

impl hookwire::agent::lifecycle::LifecycleHooks for Audit {}

/// Denies.
#[derive(Debug, Default)]
pub enum Guard {
    #[default]
    On,
}

impl LifecycleHooks for Guard {}

/// An alias: taken as it is (the compiler checks it).
pub type Strict = Guard;
"#,
    );
    put(
        dir.path().join("a.md"),
        "---\nname: a\nservers: [memory]\nhooks:\n  - lifecycle.rs:Audit\n  - event: on_request_start\n    kind: tool_call\n    toolset_name: memory\n    tool_name: get_memories\n  - hook: lifecycle.rs:Guard\n    match: \"shell|exec\"\n  - lifecycle.rs:Strict\n---\nHi.\n",
    );
    let loaded = cards::load_dir(dir.path()).unwrap();
    let spec = &loaded.cards[0].spec;
    let hooks: Vec<(&str, &str, String)> = spec
        .lifecycle_hooks
        .iter()
        .map(|h| (h.ty.as_str(), h.display_name(), h.matcher.to_string()))
        .collect();
    assert_eq!(
        hooks,
        [
            ("lifecycle_rs::Audit", "lifecycle.rs:Audit", "*".to_owned()),
            (
                "lifecycle_rs::Guard",
                "lifecycle.rs:Guard",
                "shell|exec".to_owned()
            ),
            (
                "lifecycle_rs::Strict",
                "lifecycle.rs:Strict",
                "*".to_owned()
            ),
        ]
    );
    assert_eq!(spec.hooks.len(), 1, "the DIAL entry stays a request hook");
    // A build script reruns when the hook file changes.
    let canonical = std::fs::canonicalize(dir.path().join("lifecycle.rs")).unwrap();
    assert!(
        loaded.inputs().contains(&canonical),
        "{:?}",
        loaded.inputs()
    );
    let files = cards::generate(&loaded, &BuildOptions::new(dir.path().join("out"))).unwrap();
    let code = &files[0].content;
    assert!(
        files[1].content.contains("mod lifecycle_rs;"),
        "{}",
        files[1].content
    );
    assert!(
        code.contains("use super::__rust_refs::lifecycle_rs;\n"),
        "{code}"
    );
    let body = code.split("fn lifecycle_hooks").nth(1).unwrap();
    let audit = body.find("<lifecycle_rs::Audit as ::core::default::Default>::default()");
    let guard = body.find("<lifecycle_rs::Guard as ::core::default::Default>::default()");
    let strict = body.find("<lifecycle_rs::Strict as ::core::default::Default>::default()");
    assert!(audit < guard && guard < strict, "declared order\n{body}");
    assert!(audit.is_some() && body.contains("ForTools::new"), "{body}");
}

#[test]
fn explain_graph_and_schema_show_lifecycle_hooks() {
    let loaded = cards::load_dir(&fixtures().join("good")).unwrap();
    let text = cards::explain(&loaded, "NY-Project-Manager").unwrap();
    assert!(
        text.contains("tool project_status (function, tools.rs:project_status)\n  -> project_status\n  lifecycle hooks on its calls (pre/post tool use): 1. lifecycle.rs:Recorder, 2. lifecycle.rs:Deny\n"),
        "{text}"
    );
    assert!(
        text.contains("  -> add_one\n  lifecycle hooks on its calls (pre/post tool use): 1. lifecycle.rs:Recorder\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "\nlifecycle hooks (agent loop, in declared order):\n  1. lifecycle.rs:Recorder [match *]\n  2. lifecycle.rs:Deny [match project_status]\n"
        ),
        "{text}"
    );
    let mermaid = cards::graph(&loaded, cards::GraphFormat::Mermaid);
    assert!(
        mermaid.contains("agent_NY_Project_Manager -->|\"lifecycle 2, match project_status\"| lifecycle_lifecycle_rs_Deny"),
        "{mermaid}"
    );
    let dot = cards::graph(&loaded, cards::GraphFormat::Dot);
    assert!(
        dot.contains(
            "agent_NY_Project_Manager -> lifecycle_lifecycle_rs_Recorder [label=\"lifecycle 1\"];"
        ),
        "{dot}"
    );
    let schema = cards::schema();
    let kinds = schema["properties"]["hooks"]["items"]["oneOf"]
        .as_array()
        .unwrap();
    assert_eq!(kinds.len(), 3, "a type, {{hook, match}}, a request hook");
    assert_eq!(kinds[1]["required"], serde_json::json!(["hook"]));
    assert_eq!(
        kinds[2]["required"],
        serde_json::json!(["event", "tool_name"])
    );
}

/// `n` cards (with a function tool) in a new folder.
fn many_cards(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixtures().join("good/tools.rs"),
        dir.path().join("tools.rs"),
    )
    .unwrap();
    for i in 0..n {
        put(
            dir.path().join(format!("c{i:03}.md")),
            format!("---\nname: c{i}\nfunction_tools: [tools.rs:add_one]\n---\nCard {i}.\n"),
        );
    }
    dir
}

#[test]
fn a_build_spread_over_threads_writes_what_generate_gives_and_rebuilds_nothing() {
    // 250 cards: enough for `build` to use every core (one per 100 cards).
    let dir = many_cards(250);
    let out = tempfile::tempdir().unwrap();
    let (loaded, report) = cards::build(dir.path(), &BuildOptions::new(out.path())).unwrap();
    assert_eq!(report.written.len(), 252);
    let expected = cards::generate(&loaded, &BuildOptions::new(out.path())).unwrap();
    for f in &expected {
        let written = std::fs::read_to_string(out.path().join(&f.name)).unwrap();
        assert_eq!(written, f.content, "{}", f.name);
    }
    let mut names: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 252, "no temporary file is left: {names:?}");
    // The written files are reported in card order, `mod.rs` last.
    let order: Vec<String> = expected.iter().map(|f| f.name.clone()).collect();
    let reported: Vec<String> = report
        .written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(reported, order);
    let snap = snapshot(out.path());
    let (_, again) = cards::build(dir.path(), &BuildOptions::new(out.path())).unwrap();
    assert!(again.written.is_empty(), "{again:?}");
    assert_eq!(snapshot(out.path()), snap);
}

#[test]
fn a_bad_card_among_many_leaves_the_output_untouched() {
    let dir = many_cards(250);
    // A bad card in the share of another thread than the first.
    put(
        dir.path().join("c201.md"),
        "---\nname: c201\nmax_parallel: 0\n---\nCard.\n",
    );
    let out = prepared_out();
    let before = snapshot(out.path());
    let Err(BuildError::Cards(diags)) = cards::build(dir.path(), &BuildOptions::new(out.path()))
    else {
        panic!("expected card errors");
    };
    assert_eq!(diags.len(), 1, "{}", render(&diags));
    assert_eq!(diags[0].path, dir.path().join("c201.md"));
    assert_eq!(diags[0].line, 3);
    assert_eq!(snapshot(out.path()), before, "the output folder changed");
    // And a folder that does not exist yet is not created.
    let missing = out.path().join("not-yet");
    assert!(cards::build(dir.path(), &BuildOptions::new(&missing)).is_err());
    assert!(!missing.exists());
}

/// `more/tools.rs` in `dir`: an `add_one` whose adapter name clashes with
/// that of `tools.rs:add_one`.
fn write_more_tools(dir: &Path) {
    std::fs::create_dir(dir.join("more")).unwrap();
    put(
        dir.join("more/tools.rs"),
        "/// Adds one, too.\npub fn add_one(x: i64) -> i64 { x + 1 }\n",
    );
}

#[test]
fn a_tool_fn_shared_by_many_cards_is_aliased_once_and_clashing_names_are_imported_under_the_cards_names()
 {
    let dir = tempfile::tempdir().unwrap();
    // `add_one` carries `#[hookwire::tool]`: the shared module aliases the
    // macro's type once; `more/tools.rs` has a function of the same name.
    put(
        dir.path().join("tools.rs"),
        "/// Adds one.\n#[hookwire::tool]\npub fn add_one(x: i64) -> i64 { x + 1 }\n",
    );
    write_more_tools(dir.path());
    for i in 0..3 {
        put(
            dir.path().join(format!("c{i}.md")),
            format!("---\nname: c{i}\nfunction_tools: [tools.rs:add_one]\n---\nHi.\n"),
        );
    }
    put(
        dir.path().join("d.md"),
        "---\nname: d\nfunction_tools: [more/tools.rs:add_one]\n---\nHi.\n",
    );
    let loaded = cards::load_dir(dir.path()).unwrap();
    let files = cards::generate(&loaded, &BuildOptions::new(dir.path().join("out"))).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "c0.rs",
            "c1.rs",
            "c2.rs",
            "d.rs",
            "__rust_refs.rs",
            "mod.rs"
        ]
    );
    let refs = &files[4].content;
    assert_eq!(
        refs.matches("pub type AddOneTool = tools_rs::add_one;")
            .count(),
        1,
        "{refs}"
    );
    assert!(
        refs.contains(
            "#[path = \"../more/tools.rs\"]\n#[allow(dead_code, clippy::duplicate_mod)]\npub(super) mod more_tools_rs;"
        ),
        "{refs}"
    );
    assert!(refs.contains("pub struct AddOneTool2 {}"), "{refs}");
    assert!(refs.contains("more_tools_rs::add_one(x)"), "{refs}");
    for card in &files[..3] {
        assert!(
            card.content
                .contains("use super::__rust_refs::AddOneTool;\n"),
            "{}",
            card.content
        );
    }
    // `d` calls its adapter `AddOneTool` (its only one); the build-wide
    // name is `AddOneTool2`.
    assert!(
        files[3]
            .content
            .contains("use super::__rust_refs::AddOneTool2 as AddOneTool;\n"),
        "{}",
        files[3].content
    );
    assert!(
        files[3]
            .content
            .contains("<AddOneTool as ::hookwire::ToolDecl>::Handler")
    );
    // The parallel generation gives the same files.
    let parallel = cards::generate_parallel(
        dir.path(),
        &loaded,
        &BuildOptions::new(dir.path().join("out")),
    )
    .unwrap();
    assert_eq!(parallel, files);
}

#[test]
fn cards_without_rust_references_get_no_shared_module() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path().join("a.md"), "---\nname: a\n---\nHi.\n");
    let loaded = cards::load_dir(dir.path()).unwrap();
    let files = cards::generate(&loaded, &BuildOptions::new(dir.path().join("out"))).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a.rs", "mod.rs"]);
    assert!(
        !files[1].content.contains("__rust_refs"),
        "{}",
        files[1].content
    );
}

#[test]
fn worker_threads_finish_their_cards_with_the_build_wide_names() {
    // 250 cards: `build` spreads them over every core; `c151` (in another
    // thread's share when there are two) uses a clashing adapter name and
    // a lifecycle hook's module.
    let dir = many_cards(250);
    write_more_tools(dir.path());
    put(
        dir.path().join("life.rs"),
        "/// Audit.\n#[derive(Default)]\npub struct Audit;\nimpl hookwire::agent::lifecycle::LifecycleHooks for Audit {}\n",
    );
    put(
        dir.path().join("c151.md"),
        "---\nname: c151\nfunction_tools: [more/tools.rs:add_one]\nhooks: [life.rs:Audit]\n---\nHi.\n",
    );
    let out = tempfile::tempdir().unwrap();
    let (loaded, report) = cards::build(dir.path(), &BuildOptions::new(out.path())).unwrap();
    assert_eq!(report.written.len(), 252);
    let expected = cards::generate(&loaded, &BuildOptions::new(out.path())).unwrap();
    for f in &expected {
        let written = std::fs::read_to_string(out.path().join(&f.name)).unwrap();
        assert_eq!(written, f.content, "{}", f.name);
    }
    let c151 = std::fs::read_to_string(out.path().join("c151.rs")).unwrap();
    assert!(
        c151.contains(
            "use super::__rust_refs::AddOneTool2 as AddOneTool;\nuse super::__rust_refs::life_rs;\n"
        ),
        "{c151}"
    );
    assert!(c151.contains("<life_rs::Audit as ::core::default::Default>::default()"));
    let refs = std::fs::read_to_string(out.path().join("__rust_refs.rs")).unwrap();
    assert!(refs.contains("pub(super) mod life_rs;"), "{refs}");
    assert_eq!(refs.matches("pub struct AddOneTool").count(), 2, "{refs}");
}

#[test]
fn a_build_script_gets_an_error_not_a_stack_overflow_for_deep_rust() {
    let out = tempfile::tempdir().unwrap();
    let result = hookwire_codegen::Builder::new(fixtures().join("bad/rs_too_deep"))
        .out_dir(out.path())
        .emit_rerun_if_changed(false)
        .compile();
    let Err(BuildError::Cards(diags)) = result else {
        panic!("expected card errors, got {:?}", result.map(|_| ()));
    };
    assert_eq!(diags.len(), 1, "{}", render(&diags));
    assert_eq!(
        (diags[0].line, diags[0].col),
        (6, 120),
        "{}",
        diags[0].message
    );
}

#[test]
fn file_names_and_descriptions_cannot_inject_code_or_break_comments() {
    // A card file name with line breaks and a CR, a description with a CR
    // and a text-direction character: the generated files parse to exactly
    // the expected items, and hold neither character raw.
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path().join("a\nfn evil() {}\n\r.md"),
        "---\nname: calc\ndescription: \"one\\rtwo \\u202e three\\r\\nfour\"\n---\nHi.\n",
    );
    let loaded = cards::load_dir(dir.path()).unwrap();
    let files = cards::generate(&loaded, &BuildOptions::new(dir.path().join("out"))).unwrap();
    for f in &files {
        assert!(!f.content.contains(['\r', '\u{202e}']), "{}", f.content);
        let file = syn::parse_file(&f.content).unwrap();
        let fns = file
            .items
            .iter()
            .filter(|i| matches!(i, syn::Item::Fn(_)))
            .count();
        assert_eq!(fns, 0, "{}", f.content);
    }
    assert_eq!(
        files[0].content.lines().next().unwrap(),
        "// @generated by cardgen from a\\nfn evil() {}\\n\\n.md. Do not edit."
    );
    let module = &files[1].content;
    let items = syn::parse_file(module).unwrap().items;
    assert_eq!(
        items.len(),
        2,
        "`pub mod calc;` and its `pub use`:\n{module}"
    );
    assert!(
        module.contains("/// The agent `calc`, from `a\\nfn evil() {}\\n\\n.md`.\n"),
        "{module}"
    );
    assert!(
        files[0].content.contains("two \\u{202e} three"),
        "{}",
        files[0].content
    );
}

#[test]
fn a_symlinked_card_out_of_the_folder_is_refused_unread_like_a_rust_file() {
    let dir = fixtures().join("bad/card_symlink_out");
    let diags = cards::load_dir(&dir).unwrap_err();
    assert_eq!(diags.len(), 1, "{}", render(&diags));
    let d = &diags[0];
    assert_eq!((d.path.clone(), d.line), (dir.join("evil.md"), 1));
    assert!(
        d.message
            .starts_with("card `evil.md` lies outside the cards folder (it resolves to "),
        "{d}"
    );
    assert_eq!(d.source_line, None);
    assert!(!d.to_string().contains("SECRET"), "{d}");
    // The same rule, with the same words, for a referenced `.rs` file.
    let rs = cards::load_dir(&fixtures().join("bad/symlink_out")).unwrap_err();
    assert!(
        rs[0]
            .message
            .starts_with("`evil.rs` lies outside the cards folder (it resolves to "),
        "{}",
        rs[0]
    );
}

/// A folder with one card `a` (its frontmatter lines `fields`) and the
/// given files.
fn deps_folder(fields: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path().join("a.md"),
        format!("---\nname: a\n{fields}---\nHi.\n"),
    );
    for (name, text) in files {
        put(dir.path().join(name), text);
    }
    dir
}

const APP_DEPS: &str = "/// Deps.\n#[derive(Clone)]\npub struct AppDeps;\n";

#[test]
fn deps_sets_the_agents_dependency_type_and_the_cards_module_reexports_its_file() {
    let dir = deps_folder("deps: deps.rs:AppDeps\n", &[("deps.rs", APP_DEPS)]);
    let loaded = cards::load_dir(dir.path()).unwrap();
    let card = &loaded.cards[0];
    assert_eq!(card.spec.deps.as_deref(), Some("deps::AppDeps"));
    let deps_file = card.deps_file.as_deref().unwrap();
    assert!(deps_file.ends_with("deps.rs"), "{deps_file:?}");
    let files = cards::generate(&loaded, &BuildOptions::new(dir.path().join("out"))).unwrap();
    let a = &files[0].content;
    assert!(
        a.contains("\npub use super::__rust_refs::deps_rs as deps;\n"),
        "{a}"
    );
    assert!(
        a.contains("pub fn new(deps: &deps::AppDeps) -> Self"),
        "{a}"
    );
    // Public, so that the re-export is allowed.
    assert!(
        files[1].content.contains("\npub mod deps_rs;\n"),
        "{}",
        files[1].content
    );

    // Without `deps:`, `new()` and no re-export.
    let dir = deps_folder("", &[]);
    let loaded = cards::load_dir(dir.path()).unwrap();
    assert_eq!(loaded.cards[0].spec.deps, None);
    let files = cards::generate(&loaded, &BuildOptions::new(dir.path().join("out"))).unwrap();
    assert!(files[0].content.contains("pub fn new() -> Self"));
    assert!(!files[0].content.contains(" as deps;"));
}

#[test]
fn a_dep_is_provided_by_a_from_ref_impl_in_any_file_the_card_references() {
    let card = "deps: deps.rs:AppDeps\nfunction_tools: [tools.rs:get]\n";
    // `Dep<std::sync::Arc<crate::Pool>>` asks for `Arc<Pool>`; the impl is
    // in the tool's own file and names the trait unqualified.
    let tools = "use hookwire::{Dep, FromRef};\nuse super::deps_rs::AppDeps;\n/// A pool.\npub struct Pool;\n\
                 impl FromRef<AppDeps> for std::sync::Arc<Pool> { fn from_ref(_: &AppDeps) -> Self { std::sync::Arc::new(Pool) } }\n\
                 /// Gets.\npub fn get(pool: Dep<std::sync::Arc<crate::Pool>>) -> String { let _ = pool; String::new() }\n";
    let dir = deps_folder(card, &[("deps.rs", APP_DEPS), ("tools.rs", tools)]);
    cards::load_dir(dir.path()).unwrap();

    // Not an impl that counts: behind a `cfg`, generic, or for other
    // dependencies.
    for impl_ in [
        "#[cfg(test)]\nimpl FromRef<AppDeps> for Arc<Pool> { fn from_ref(_: &AppDeps) -> Self { todo!() } }\n",
        "impl<D> FromRef<D> for Arc<Pool> { fn from_ref(_: &D) -> Self { todo!() } }\n",
        "impl FromRef<OtherDeps> for Arc<Pool> { fn from_ref(_: &OtherDeps) -> Self { todo!() } }\n",
    ] {
        let tools = format!(
            "use hookwire::{{Dep, FromRef}};\nuse std::sync::Arc;\n/// A pool.\npub struct Pool;\n{impl_}\
             /// Gets.\npub fn get(pool: Dep<Arc<Pool>>) -> String {{ let _ = pool; String::new() }}\n"
        );
        let dir = deps_folder(card, &[("deps.rs", APP_DEPS), ("tools.rs", &tools)]);
        let diags = cards::load_dir(dir.path()).unwrap_err();
        assert_eq!(diags.len(), 1, "{impl_}\n{}", render(&diags));
        assert_eq!(
            diags[0].message,
            "tool `get` takes `Dep<Arc<Pool>>`, but the agent's dependencies `AppDeps` (`deps: deps.rs:AppDeps`) do not provide `Arc<Pool>`",
            "{impl_}"
        );
        assert_eq!(diags[0].path, dir.path().join("tools.rs"));
        let line = tools
            .lines()
            .position(|l| l.starts_with("pub fn get"))
            .unwrap()
            + 1;
        assert_eq!((diags[0].line, diags[0].col), (line, 18), "{}", diags[0]);
        // `deps: deps.rs:Arc<Pool>` would not parse: not suggested.
        assert_eq!(
            diags[0].help.as_deref(),
            Some("add `impl hookwire::FromRef<AppDeps> for Arc<Pool>` to deps.rs")
        );
        assert_eq!(
            diags[0].notes.last().unwrap(),
            "`AppDeps` provides: AppDeps"
        );
    }

    // A type alias as the dependency type is taken to be `Clone`, and
    // `deps:` naming the part itself provides it.
    let dir = deps_folder(
        "deps: deps.rs:Pool\nfunction_tools: [tools.rs:get]\n",
        &[
            (
                "deps.rs",
                "/// A pool.\npub type Pool = std::sync::Arc<String>;\n",
            ),
            (
                "tools.rs",
                "/// Gets.\npub fn get(pool: hookwire::Dep<super::deps_rs::Pool>) -> String { pool.0.to_string() }\n",
            ),
        ],
    );
    cards::load_dir(dir.path()).unwrap();
}
