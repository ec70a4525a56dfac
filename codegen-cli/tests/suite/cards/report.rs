//! What the cards show of themselves: `explain`, `graph`, `schema`, `${ENV}`
//! references and the lowering of lifecycle hooks.

use hookwire_codegen::cards::{self, BuildOptions};

use super::{fixtures, put};

#[test]
fn explain_prints_each_chain_in_run_order() {
    let loaded = cards::load_dir(&fixtures().join("good")).unwrap();
    let text = cards::explain(&loaded, "PMO-orchestrator").unwrap();
    let add_one = text.split("\ntool add_one").nth(1).unwrap();
    let add_one = add_one.split("\n\n").next().unwrap();
    assert_eq!(
        add_one,
        " (function, tools.rs:add_one)\n  arguments: {\"x\": i64}\n  1. hooks.rs:audit_hook [match *, fail_closed]\n  2. hooks.rs:clamp [match add_*, fail_open, timeout 500 ms]\n  3. hooks.rs:tag [match *, fail_closed]\n  -> add_one"
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
        "/// Writes.\n#[hookwire::tool(tool_hooks = [no_secrets, redact(on_failure = \"open\")], needs_approval = checks::outside_tmp, on_error = explain)]\npub fn write_file(path: String) -> String { path }\n",
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
        " (function, tools.rs:write_file)\n  arguments: {\"path\": String}\n  1. hooks.rs:audit [match *, fail_closed]\n  2. no_secrets [the tool's own]\n  3. redact(on_failure = \"open\") [the tool's own]\n  4. needs_approval = checks::outside_tmp [the tool's own]\n  5. on_error = explain [the tool's own]\n  -> write_file\n"
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
    assert_eq!(
        loaded.cards[0].spec.settings.model.as_deref(),
        Some("scripted")
    );
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
        "---\nname: a\nservers: [memory]\nhooks:\n  - lifecycle.rs:Audit\n  - event: on_request_start\n    kind: tool_call\n    toolset_name: memory\n    tool_name: get_memories\n  - hook: lifecycle.rs:Guard\n    match: \"memory__shell|memory__exec\"\n  - lifecycle.rs:Strict\n---\nHi.\n",
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
                "memory__shell|memory__exec".to_owned()
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
    // Each lifecycle hook has its slot, which names the card's type...
    for (i, ty) in ["Audit", "Guard", "Strict"].iter().enumerate() {
        assert!(
            code.contains(&format!(
                "Lifecycle{i}_{ty} {{\n    type Deps = ();\n    type Hook = lifecycle_rs::{ty};"
            )),
            "{code}"
        );
    }
    // ...and the hooks run in declared order.
    let body = code.split("fn lifecycle_hooks").nth(1).unwrap();
    let audit = body.find("Lifecycle0_Audit");
    let guard = body.find("Lifecycle1_Guard");
    let strict = body.find("Lifecycle2_Strict");
    assert!(audit < guard && guard < strict, "declared order\n{body}");
    assert!(audit.is_some() && body.contains("ForTools::new"), "{body}");
}

#[test]
fn explain_graph_and_schema_show_lifecycle_hooks() {
    let loaded = cards::load_dir(&fixtures().join("good")).unwrap();
    let text = cards::explain(&loaded, "NY-Project-Manager").unwrap();
    assert!(
        text.contains("tool project_status (function, tools.rs:project_status)\n  arguments: {\"project\": String}\n  -> project_status\n  lifecycle hooks on its calls (pre/post tool use): 1. lifecycle.rs:Recorder, 2. lifecycle.rs:Deny\n"),
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

/// The names of the hooks of `tool` in a policy document, in run order.
fn chain_of(json: &str, tool: &str) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(json).unwrap();
    let tools = doc["tools"].as_array().unwrap();
    let t = tools.iter().find(|t| t["name"] == tool).unwrap();
    t["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            format!(
                "{} {}",
                h["level"].as_str().unwrap(),
                h["name"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn explain_json_gives_the_chain_in_run_order_with_the_tools_own_hooks_and_approval() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path().join("tools.rs"),
        "/// Writes.\n#[hookwire::tool(tool_hooks = [no_secrets, redact(on_failure = \"open\", timeout_ms = 9)], needs_approval = checks::outside_tmp)]\npub fn write_file(path: String) -> String { path }\n",
    );
    put(
        dir.path().join("hooks.rs"),
        "use hookwire::{Next, Outcome, ToolArgs, ToolContext};\n/// Audits.\npub async fn audit<N: hookwire::Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome { next.run(cx, args).await }\n/// Tags.\npub async fn tag<N: hookwire::Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome { next.run(cx, args).await }\n",
    );
    let card = |hooks: &str| {
        put(
            dir.path().join("w.md"),
            format!(
                "---\nname: w\nfunction_tools: [tools.rs:write_file]\ntool_hooks: {hooks}\n---\nWrite.\n"
            ),
        );
        let loaded = cards::load_dir(dir.path()).unwrap();
        cards::explain_json(&loaded, "w").unwrap()
    };
    let json = card("[hooks.rs:audit, hooks.rs:tag]");
    assert_eq!(
        chain_of(&json, "write_file"),
        ["agent audit", "agent tag", "own no_secrets", "own redact"]
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let tool = &doc["tools"][0];
    assert_eq!(
        tool["approval"],
        serde_json::json!({"rule": "when", "predicate": "checks::outside_tmp"})
    );
    assert_eq!(tool["hooks"][3]["on_failure"], "fail_open");
    assert_eq!(tool["hooks"][3]["timeout_ms"], 9);
    // Reordering the card's hooks reorders the document.
    let json = card("[hooks.rs:tag, hooks.rs:audit]");
    assert_eq!(
        chain_of(&json, "write_file"),
        ["agent tag", "agent audit", "own no_secrets", "own redact"]
    );
    assert!(cards::explain_json(&cards::load_dir(dir.path()).unwrap(), "nobody").is_none());
}
