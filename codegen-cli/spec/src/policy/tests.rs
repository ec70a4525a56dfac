use super::*;

const AUDIT: &[PolicyHook] = &[PolicyHook::new("audit", "*")];
const TOOLS: &[PolicyTool] = &[
    PolicyTool::new("read", ToolKind::Function, &[], &[], Approval::None, &[]),
    PolicyTool::new("pay", ToolKind::Function, AUDIT, &[], Approval::None, &[]),
    PolicyTool::new("wipe", ToolKind::Function, &[], &[], Approval::Always, &[]),
];

fn policy(rules: &'static [CoverageRule]) -> Policy {
    Policy::new("shop", TOOLS, rules)
}

#[test]
fn the_document_has_its_keys_in_the_documented_order() {
    let json = policy(&[]).to_json();
    let keys: Vec<&str> = json
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
        .filter(|k| !k.is_empty())
        .collect();
    assert_eq!(
        &keys[..12],
        [
            "version",
            "agent",
            "tools",
            "name",
            "kind",
            "server",
            "hooks",
            "approval",
            "rule",
            "predicate",
            "lifecycle",
            "name"
        ]
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(value["tools"][1]["hooks"][0]["name"], "audit");
    assert_eq!(value["tools"][1]["hooks"][0]["on_failure"], "fail_closed");
    assert_eq!(value["tools"][2]["approval"]["rule"], "always");
}

#[test]
fn a_hook_its_matcher_leaves_out_is_not_in_the_chain() {
    let mut tool = TOOLS[1].clone();
    tool.hooks.to_mut()[0].selected = Selected::No;
    assert_eq!(tool.chain().count(), 0);
}

#[test]
fn approval_or_guard_names_the_first_uncovered_tool_and_skips_unselected_ones() {
    const RULES: &[CoverageRule] = &[CoverageRule::new(CoverageKind::ApprovalOrGuard, "*", &[])];
    let p = policy(RULES);
    assert_eq!(
        coverage_problem(&p, 0, 0),
        Some((0, CoverageProblem::Uncovered))
    );
    assert_eq!(coverage_problem(&p, 0, 1), None);
    let message = coverage_message(&p, 0, 0, CoverageProblem::Uncovered);
    assert!(
        message
            .as_str()
            .starts_with("coverage rule `approval_or_guard` (match `*`) is broken by tool `read`: nothing asks for approval"),
        "{}",
        message.as_str()
    );
    const SKIP: &[CoverageRule] = &[CoverageRule::new(
        CoverageKind::ApprovalOrGuard,
        "pay|wipe",
        &[Selected::No, Selected::Yes, Selected::Yes],
    )];
    assert_eq!(coverage_problem(&policy(SKIP), 0, 0), None);
}

#[test]
fn guards_fail_closed_wants_closed_guards_with_a_timeout() {
    const RULES: &[CoverageRule] = &[CoverageRule::new(CoverageKind::GuardsFailClosed, "*", &[])];
    let p = policy(RULES);
    assert_eq!(
        coverage_problem(&p, 0, 0),
        Some((1, CoverageProblem::NoTimeout(0)))
    );
    let mut open = p.clone();
    open.tools.to_mut()[1].hooks.to_mut()[0].timeout_ms = Some(100);
    assert_eq!(coverage_problem(&open, 0, 0), None);
    open.tools.to_mut()[1].hooks.to_mut()[0].on_failure = Some(FailurePolicy::FailOpen);
    assert_eq!(
        coverage_problem(&open, 0, 0),
        Some((1, CoverageProblem::FailsOpen(0)))
    );
    assert!(
        coverage_message(&open, 0, 1, CoverageProblem::FailsOpen(0))
            .as_str()
            .contains("its guard `audit` (in the agent's `tool_hooks`) fails open")
    );
}

#[test]
fn a_per_call_guard_covers_only_a_rule_with_its_own_matcher() {
    let mut hook = PolicyHook::new("gate", "meta:destructive");
    hook.selected = Selected::PerCall;
    let mut tool = PolicyTool::new("srv__*", ToolKind::Mcp, &[], &[], Approval::None, &[]);
    tool.hooks = Cow::Owned(vec![hook]);
    let rule = |m: &'static str| CoverageRule::new(CoverageKind::ApprovalOrGuard, m, &[]);
    let p = |m| Policy {
        agent: "a".into(),
        tools: Cow::Owned(vec![tool.clone()]),
        coverage: Cow::Owned(vec![rule(m)]),
    };
    assert_eq!(coverage_problem(&p("meta:destructive"), 0, 0), None);
    assert_eq!(
        coverage_problem(&p("source:mcp"), 0, 0),
        Some((0, CoverageProblem::Uncovered))
    );
}

#[test]
fn rewrites_ordered_wants_every_rewriter_of_a_tool_in_one_list() {
    let hook = |name: &'static str, level: HookLevel, rewrites: bool| {
        let mut h = PolicyHook::new(name, "*");
        h.level = level;
        h.rewrites = rewrites;
        h
    };
    let p = |hooks: Vec<PolicyHook>, own: Vec<PolicyHook>| {
        let mut tool = PolicyTool::new("refund", ToolKind::Function, &[], &[], Approval::None, &[]);
        tool.hooks = Cow::Owned(hooks);
        tool.own_hooks = Cow::Owned(own);
        Policy {
            agent: "a".into(),
            tools: Cow::Owned(vec![tool]),
            coverage: Cow::Owned(vec![CoverageRule::new(
                CoverageKind::RewritesOrdered,
                "*",
                &[],
            )]),
        }
    };
    // Two rewriters in one list: the list orders them.
    let one_list = p(
        vec![
            hook("cap", HookLevel::Agent, true),
            hook("trim", HookLevel::Agent, true),
        ],
        vec![],
    );
    assert_eq!(coverage_problem(&one_list, 0, 0), None);
    // A rewriter at the agent and one of the tool's own: nobody ordered them.
    let apart = p(
        vec![
            hook("cap", HookLevel::Agent, true),
            hook("check", HookLevel::Entry, false),
        ],
        vec![hook("normalize", HookLevel::Own, true)],
    );
    assert_eq!(
        coverage_problem(&apart, 0, 0),
        Some((0, CoverageProblem::Unordered(0, 2)))
    );
    assert_eq!(
        coverage_message(&apart, 0, 0, CoverageProblem::Unordered(0, 2)).as_str(),
        "coverage rule `rewrites_ordered` (match `*`) is broken by tool `refund`: hooks `cap` (in the agent's `tool_hooks`) and `normalize` (in the tool's own `tool_hooks`) may both rewrite its arguments, and no one list orders them (they run as the lists nest); declare both in one list, in the order they should run, or make one read the arguments without rewriting them (a pre hook taking `args: &ArgsOf<refund>`)"
    );
    // The same with the entry's hook reading only, or left out by its
    // matcher: one rewriter.
    let mut reads = apart.clone();
    reads.tools.to_mut()[0].hooks.to_mut()[0].rewrites = false;
    assert_eq!(coverage_problem(&reads, 0, 0), None);
    let mut unselected = apart.clone();
    unselected.tools.to_mut()[0].hooks.to_mut()[0].selected = Selected::No;
    assert_eq!(coverage_problem(&unselected, 0, 0), None);
}

#[test]
fn coverage_rule_names_parse_with_a_suggestion() {
    assert_eq!(
        "approval_or_guard".parse::<CoverageKind>(),
        Ok(CoverageKind::ApprovalOrGuard)
    );
    let e = "guards_fail_close".parse::<CoverageKind>().unwrap_err();
    assert_eq!(e.suggestion, Some("guards_fail_closed"));
}

/// A rule the policy keeps.
const KEPT: &[CoverageRule] = &[CoverageRule::new(
    CoverageKind::ApprovalOrGuard,
    "wipe",
    &[Selected::No, Selected::No, Selected::Yes],
)];

/// What generated agents evaluate: a kept rule compiles.
const _: () = check_coverage(Policy::new("shop", TOOLS, KEPT), 0);
