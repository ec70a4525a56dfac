use super::*;
use crate::spec::{HookRef, Matcher, SETTINGS, ToolRef, check_positive};

#[test]
fn positive_numbers_reject_zero_and_negatives() {
    assert_eq!(check_positive("k", 1), Ok(1));
    assert_eq!(
        check_positive("k", -5).unwrap_err(),
        "`k` must be greater than 0, found -5"
    );
    assert_eq!(
        check_positive("k", i128::from(u64::MAX) + 1).unwrap_err(),
        format!("`k` is too large: {}", i128::from(u64::MAX) + 1)
    );
}

#[test]
fn validate_reports_each_broken_rule_where_it_is() {
    let mut spec = AgentSpec::new("a")
        .with_function_tool(ToolRef::new("A", "x"))
        .with_function_tool(ToolRef::new("B", "x").with_hook(HookRef::new("H").with_timeout_ms(0)));
    spec.settings.child_timeout_sec = Some(0);
    spec.tool_input_schema = Some(r#"{"type": "string"}"#.to_owned());
    let errors = spec.validate();
    let fields: Vec<SpecField> = errors.iter().map(|e| e.field).collect();
    assert_eq!(
        fields,
        [
            SpecField::Setting("child_timeout_sec"),
            SpecField::ToolInputSchema,
            SpecField::FunctionTool(1),
            SpecField::Hook(HookPlace::ToolEntry { tool: 1, hook: 0 }),
        ]
    );
    assert_eq!(errors[2].first, Some(SpecField::FunctionTool(0)));
    assert!(AgentSpec::new("ok").validate().is_empty());
}

fn agent(servers: &[&str], pattern: &str) -> AgentSpec {
    let mut spec = AgentSpec::new("ops")
        .with_function_tool(ToolRef::new("E", "echo"))
        .with_function_tool(ToolRef::new("S", "shell"))
        .with_tool_hook(HookRef::new("Guard").with_match(pattern).unwrap());
    spec.servers = servers.iter().map(|s| (*s).to_owned()).collect();
    spec
}

/// The part reported for `pattern` on an agent with `servers`: `None`
/// for no error, `Some(None)` for the whole matcher.
fn dead(servers: &[&str], pattern: &str) -> Option<Option<String>> {
    let spec = agent(servers, pattern);
    let found = spec.hooks_selecting_no_tool();
    assert!(found.len() <= 1);
    found.into_iter().next().map(|u| u.part)
}

#[test]
fn meta_parts_are_checked_against_known_metadata_and_left_to_the_compiler_otherwise() {
    let known = |pattern: &str| {
        AgentSpec::new("ops")
            .with_function_tool(
                ToolRef::new("S", "shell")
                    .with_meta(crate::spec::ToolMeta::from_pairs([("risk", "high")])),
            )
            .with_function_tool(ToolRef::new("E", "echo").with_meta(crate::spec::ToolMeta::EMPTY))
            .with_tool_hook(HookRef::new("Guard").with_match(pattern).unwrap())
    };
    for ok in [
        "meta:risk",
        "meta:risk=high",
        "!meta:risk",
        "echo|meta:risk",
    ] {
        assert!(known(ok).hooks_selecting_no_tool().is_empty(), "{ok}");
    }
    let spec = known("echo|meta:risk=hgih");
    let found = spec.hooks_selecting_no_tool();
    assert_eq!(found[0].part.as_deref(), Some("meta:risk=hgih"));
    assert_eq!(
        found[0].message(&spec),
        "hook `Guard` with match `echo|meta:risk=hgih`: its part `meta:risk=hgih` selects no tool: it does not match any tool of agent `ops`; the tools declare `meta:risk=high`. Every alternative of `a|b` and the pattern under `!` must select a tool, or a typo would drop or widen the guard; fix the part, or remove it (a `meta:key` or `meta:key=value` part selects the tools that declare that metadata: `#[tool(meta(key = \"value\"))]` on a function tool, `meta(..)` on an `agents` entry)."
    );
    assert!(spec.hooks_with_undecided_meta().is_empty());
    // `#[agent]` does not know a function tool's metadata: the compiler
    // decides, against the formula of each such tool.
    let mut spec = known("echo|meta:risk=high");
    spec.function_tools[0].meta = None;
    assert!(spec.hooks_selecting_no_tool().is_empty());
    let undecided = spec.hooks_with_undecided_meta();
    let parts = &undecided[0].parts;
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].0.part.as_deref(), Some("meta:risk=high"));
    assert_eq!(
        parts[0].1,
        [(
            0,
            crate::spec::MetaFormula::Is("risk".into(), "high".into())
        )]
    );
}

#[test]
fn an_mcp_tools_annotations_are_the_only_metadata_a_server_may_add() {
    let dead = |servers: &[&str], pattern: &str| {
        let mut spec = agent(servers, pattern);
        for t in &mut spec.function_tools {
            t.meta = Some(crate::spec::ToolMeta::EMPTY);
        }
        !spec.hooks_selecting_no_tool().is_empty()
    };
    assert!(!dead(&["time"], "meta:read_only=true"));
    assert!(!dead(&["time"], "meta:destructive"));
    assert!(dead(&["time"], "meta:risk"));
    assert!(dead(&[], "meta:read_only"));
}

#[test]
fn every_part_of_a_matcher_must_select_a_tool() {
    let part = |p: &str| Some(Some(p.to_owned()));
    assert_eq!(dead(&[], "shel|echo"), part("shel"));
    assert_eq!(dead(&[], "echo|shel"), part("shel"));
    assert_eq!(dead(&[], "!shel"), part("shel"));
    assert_eq!(dead(&[], "!!shel"), Some(None));
    assert_eq!(dead(&[], "!ecoh*|shell"), part("ecoh*"));
    assert_eq!(dead(&[], "shel"), Some(None));
    assert_eq!(dead(&[], "!*"), Some(None));
    for ok in [
        "echo|shell",
        "!shell",
        "*",
        "sh*",
        "!/^e/",
        "source:function",
    ] {
        assert_eq!(dead(&[], ok), None, "{ok}");
    }
    // Composites from the YAML form: each branch counts.
    let mut spec = agent(&[], "*");
    spec.tool_hooks[0].matcher =
        serde_json::from_str(r#"{"all": ["echo", {"not": "shel"}]}"#).unwrap();
    let found = spec.hooks_selecting_no_tool();
    assert_eq!(found[0].part.as_deref(), Some("shel"));
}

#[test]
fn step_parts_select_the_final_answer_only_for_lifecycle_hooks() {
    let part = |p: &str| Some(Some(p.to_owned()));
    // A tool hook runs on tool calls: `step:tool` is every one of them,
    // `step:final` none.
    assert_eq!(dead(&[], "step:tool"), None);
    assert_eq!(dead(&[], "step:final"), Some(None));
    assert_eq!(dead(&[], "shell|step:final"), part("step:final"));
    assert_eq!(dead(&[], "!step:final"), part("step:final"));
    let spec = agent(&[], "step:final");
    let message = spec.hooks_selecting_no_tool()[0].message(&spec);
    assert!(
        message.ends_with("(`step:final` is the final answer, which only a lifecycle hook sees; a tool hook runs on tool calls, `step:tool`)."),
        "{message}"
    );
    // A lifecycle hook sees the final answer too.
    let lifecycle = |pattern: &str| {
        let mut spec = agent(&[], "*");
        let mut hook = crate::spec::LifecycleRef::new("Audit");
        hook.matcher = Matcher::parse(pattern).unwrap();
        spec.lifecycle_hooks.push(hook);
        let found = spec.hooks_selecting_no_tool();
        found.into_iter().next().map(|u| u.part)
    };
    for ok in ["step:final", "step:tool", "shell|step:final", "!step:final"] {
        assert_eq!(lifecycle(ok), None, "{ok}");
    }
    assert_eq!(lifecycle("shel|step:final"), part("shel"));
    // An agent without tools has no tool step.
    let mut spec = AgentSpec::new("quiet");
    let mut hook = crate::spec::LifecycleRef::new("Audit");
    hook.matcher = Matcher::parse("step:tool").unwrap();
    spec.lifecycle_hooks.push(hook);
    assert_eq!(spec.hooks_selecting_no_tool().len(), 1);
}

#[test]
fn run_time_parts_name_a_declared_server_or_source() {
    let part = |p: &str| Some(Some(p.to_owned()));
    for ok in [
        "time__now",
        "time__*",
        "source:mcp",
        "/^time__/",
        "!shell",
        "echo|time__get_*",
    ] {
        assert_eq!(dead(&["time"], ok), None, "{ok}");
    }
    assert_eq!(dead(&["time"], "shel|echo"), part("shel"));
    assert_eq!(dead(&["time"], "!shel"), part("shel"));
    assert_eq!(dead(&["time"], "tiem__now"), Some(None));
    assert_eq!(dead(&["time"], "source:mcp|tiem__*"), part("tiem__*"));
    assert_eq!(dead(&["time"], "/^tiem__/"), Some(None));
    let spec = agent(&["time"], "source:mcp|tiem__now");
    let message = spec.hooks_selecting_no_tool()[0].message(&spec);
    assert!(message.contains("did you mean `time__now`?"), "{message}");
}

#[test]
fn source_runtime_selects_only_where_tools_may_be_registered_at_run_time() {
    let runtime = |pattern: &str| {
        let mut spec = agent(&[], pattern);
        spec.runtime_tools = true;
        let found = spec.hooks_selecting_no_tool();
        found.into_iter().next().map(|u| u.part)
    };
    // Without `runtime_tools` (nor servers) nothing is registered.
    assert_eq!(dead(&[], "source:runtime"), Some(None));
    assert_eq!(dead(&["time"], "source:runtime"), Some(None));
    let spec = agent(&[], "source:runtime");
    let message = spec.hooks_selecting_no_tool()[0].message(&spec);
    assert!(
        message.ends_with("(`source:runtime` selects tools registered at run time, which need the agent's `runtime_tools`)."),
        "{message}"
    );
    // With it, a part may select a registered tool of any name.
    for ok in [
        "source:runtime",
        "echo|source:runtime",
        "step:tool",
        "fetch*",
    ] {
        assert_eq!(runtime(ok), None, "{ok}");
    }
    // Another source or the final answer still selects nothing.
    assert_eq!(runtime("source:mcp"), Some(None));
    assert_eq!(
        runtime("source:runtime|source:agent"),
        Some(Some("source:agent".to_owned()))
    );
    assert_eq!(runtime("step:final"), Some(None));
}

#[test]
fn mcp_filter_keys_name_a_declared_server() {
    let mut spec = agent(&["time"], "*");
    spec.mcp_tools = vec![
        crate::spec::McpToolsSpec {
            server: "time".into(),
            globs: vec!["get_*".into()],
        },
        crate::spec::McpToolsSpec {
            server: "tiem".into(),
            globs: vec!["get_*".into()],
        },
    ];
    let errors = spec.validate();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].field, SpecField::McpTools(1));
    assert!(
        errors[0].message.ends_with("did you mean `time`?"),
        "{}",
        errors[0].message
    );
    spec.servers.clear();
    spec.mcp_tools.truncate(1);
    let errors = spec.validate();
    assert!(
        errors[0].message.contains("the agent has no `servers`"),
        "{}",
        errors[0].message
    );
}

#[test]
fn every_part_a_check_points_at_is_under_a_declared_key() {
    let hook = HookPlace::ToolEntry { tool: 0, hook: 0 };
    let settings = SETTINGS.iter().map(|s| SpecField::Setting(s.key));
    for field in settings.chain([
        SpecField::Name,
        SpecField::ToolInputSchema,
        SpecField::FunctionTool(0),
        SpecField::Agent(0),
        SpecField::Hook(HookPlace::ToolHook(0)),
        SpecField::Hook(hook),
        SpecField::Hook(HookPlace::Lifecycle(0)),
        SpecField::EventHook(0),
        SpecField::McpTools(0),
    ]) {
        assert!(AGENT_FIELDS.contains(&field.key()), "{field}");
        assert!(field.to_string().starts_with(field.key()), "{field}");
    }
    assert_eq!(
        SpecField::Hook(hook).to_string(),
        "function_tools[0].hooks[0]"
    );
}
