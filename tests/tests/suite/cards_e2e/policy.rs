//! An agent's policy (`policy()`, `to_json()`): the compiled card agents
//! give what `cardgen explain --json` printed for their cards, the card and
//! its `#[agent]` twin give the same document, and a macro agent's
//! document follows its declaration (`meta:` matchers decided on each
//! tool's `Tool::META`, the tool's own hooks and approval, hook order).

use super::*;

/// The golden document of `cardgen explain --json` for the card `name`.
macro_rules! golden {
    ($name:literal) => {
        include_str!(concat!(
            "../../../../codegen-cli/tests/expected/policy/",
            $name,
            ".json.expected"
        ))
    };
}

#[test]
fn every_card_agent_gives_the_document_cardgen_explain_json_printed() {
    use agents::*;
    let pairs = [
        (DialDesk::policy(), golden!("Dial-Desk")),
        (GuardDesk::policy(), golden!("Guard-Desk")),
        (
            LondonProjectManager::policy(),
            golden!("London-Project-Manager"),
        ),
        (NyProjectManager::policy(), golden!("NY-Project-Manager")),
        (PmoOrchestrator::policy(), golden!("PMO-orchestrator")),
        (RelayDesk::policy(), golden!("Relay-Desk")),
        (RuntimeDesk::policy(), golden!("Runtime-Desk")),
        (ScoreDesk::policy(), golden!("Score-Desk")),
        (Shapes::policy(), golden!("shapes")),
        (TriageDesk::policy(), golden!("Triage-Desk")),
        (VerdictDesk::policy(), golden!("Verdict-Desk")),
        (Shop::policy(), golden!("shop")),
    ];
    for (policy, golden) in pairs {
        assert_eq!(policy.to_json(), golden, "{}", policy.agent);
    }
    // The shop's refund asks for approval and is `meta(risk = "high")`:
    // both read from its `#[tool]` by the compiler.
    let shop = Shop::policy();
    let refund = shop.tool("refund").unwrap();
    assert_eq!(refund.approval, hookwire::review::Approval::Always);
}

#[test]
fn the_card_and_its_macro_twin_give_the_same_document() {
    assert_eq!(
        PmoOrchestrator::policy().to_json(),
        super::macro_twin::twin::PmoMacro::policy().to_json()
    );
    assert_eq!(
        NyProjectManager::policy().to_json(),
        super::macro_twin::twin::NyMacro::policy().to_json()
    );
    let pmo = PmoOrchestrator::policy();
    let names: Vec<&str> = pmo
        .tool("add_one")
        .unwrap()
        .chain()
        .map(|h| &*h.name)
        .collect();
    assert_eq!(names, ["audit_hook", "clamp", "tag"]);
}

mod declared {
    use hookwire::{Decision, Next, Outcome, ToolArgs, ToolContext};

    /// Pays.
    #[hookwire::tool(meta(risk = "high"), tool_hooks = [limit(timeout_ms = 20)])]
    pub fn pay(amount: u32) -> String {
        format!("paid {amount}")
    }

    /// Refunds.
    #[hookwire::tool(needs_approval = small, meta(risk = "high"))]
    pub fn refund(amount: u32) -> String {
        format!("refunded {amount}")
    }

    /// Reads.
    #[hookwire::tool]
    pub fn read(key: String) -> String {
        key
    }

    pub(crate) fn small(args: &hookwire::declare::ArgsOf<refund>) -> bool {
        args.amount > 10
    }

    /// Limits amounts.
    #[hookwire::hook]
    pub async fn limit(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
        Decision::Continue
    }

    /// Audits.
    #[hookwire::hook]
    pub async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
        next.run(cx, args).await
    }

    /// The risky tools' guard first.
    #[hookwire::agent(
        name = "desk",
        instruction = "Pay.",
        function_tools = [pay, refund, read],
        tool_hooks = [limit(match = "meta:risk=high", timeout_ms = 50), audit(timeout_ms = 100)],
        coverage = [approval_or_guard(match = "meta:risk=high"), guards_fail_closed(match = "pay")],
    )]
    pub struct Desk;

    /// Reads a payment's arguments as their type: does not rewrite them.
    #[hookwire::hook]
    pub async fn peek(_cx: &mut ToolContext, args: &hookwire::declare::ArgsOf<pay>) -> Decision {
        let _ = args.amount;
        Decision::Continue
    }

    /// Sees the outcome only.
    #[hookwire::hook]
    pub async fn stamp(_cx: &mut ToolContext, _outcome: &mut Outcome) {}

    /// `pay`'s own `limit` is its one rewriter (`peek` reads, `stamp` is a
    /// post hook): `rewrites_ordered` holds, so it compiles.
    #[hookwire::agent(
        name = "ordered",
        instruction = "Pay.",
        function_tools = [pay],
        tool_hooks = [peek(match = "pay"), stamp],
        coverage = [rewrites_ordered],
    )]
    pub struct Ordered;

    /// The same, the hooks the other way round.
    #[hookwire::agent(
        name = "desk",
        instruction = "Pay.",
        function_tools = [pay, refund, read],
        tool_hooks = [audit(timeout_ms = 100), limit(match = "meta:risk=high", timeout_ms = 50)],
    )]
    pub struct Swapped;
}

fn chain(policy: &hookwire::Policy, tool: &str) -> Vec<String> {
    policy
        .tool(tool)
        .unwrap()
        .chain()
        .map(|h| format!("{} {}", h.level.as_str(), h.name))
        .collect()
}

#[test]
fn a_macro_agents_document_follows_its_declaration() {
    let p = declared::Desk::policy();
    // `meta:risk=high` selects the two risky tools, decided by the
    // compiler on their `Tool::META`; the tool's own hooks come last.
    assert_eq!(
        chain(&p, "pay"),
        ["agent limit", "agent audit", "own limit"]
    );
    assert_eq!(chain(&p, "refund"), ["agent limit", "agent audit"]);
    assert_eq!(chain(&p, "read"), ["agent audit"]);
    assert_eq!(
        p.tool("refund").unwrap().approval,
        hookwire::review::Approval::When("small".into())
    );
    let doc: serde_json::Value = serde_json::from_str(&p.to_json()).unwrap();
    assert_eq!(doc["version"], hookwire::review::POLICY_VERSION);
    assert_eq!(doc["tools"][0]["hooks"][0]["timeout_ms"], 50);
    assert_eq!(doc["tools"][0]["hooks"][2]["timeout_ms"], 20);
    assert_eq!(
        doc["coverage"],
        serde_json::json!([
            {"rule": "approval_or_guard", "match": "meta:risk=high"},
            {"rule": "guards_fail_closed", "match": "pay"}
        ])
    );
    // Reordered hooks, reordered document.
    let s = declared::Swapped::policy();
    assert_eq!(
        chain(&s, "pay"),
        ["agent audit", "agent limit", "own limit"]
    );
    assert_ne!(s.to_json(), p.to_json());
}

/// Whether each hook of `tool`'s chain may rewrite its arguments.
fn rewrites(policy: &hookwire::Policy, tool: &str) -> Vec<(String, bool)> {
    policy
        .tool(tool)
        .unwrap()
        .chain()
        .map(|h| (h.name.to_string(), h.rewrites))
        .collect()
}

#[test]
fn the_document_says_each_hooks_phase_and_whether_it_may_rewrite_and_rewrites_ordered_reads_it() {
    use hookwire::review::{CoverageKind, CoverageProblem, CoverageRule, coverage_problem};
    // Read by the compiler from each hook's type (`Hook::REWRITES`, set by
    // `#[hook]` from the signature): a typed `&ArgsOf` pre hook and a post
    // hook do not rewrite; a JSON pre hook and an around hook may.
    let ordered = declared::Ordered::policy();
    let own = |b| ("limit".to_owned(), b);
    assert_eq!(
        rewrites(&ordered, "pay"),
        [
            ("peek".to_owned(), false),
            ("stamp".to_owned(), false),
            own(true)
        ]
    );
    // Each hook's phase, from its signature too (`#[hook]` makes every
    // function a type that implements `Hook`).
    let phases: Vec<&str> = ordered
        .tool("pay")
        .unwrap()
        .chain()
        .map(|h| h.phase.as_str())
        .collect();
    assert_eq!(phases, ["pre", "post", "pre"]);
    assert_eq!(
        declared::Desk::policy()
            .tool("read")
            .unwrap()
            .chain()
            .map(|h| h.phase.as_str())
            .collect::<Vec<_>>(),
        ["around"]
    );
    let doc: serde_json::Value = serde_json::from_str(&ordered.to_json()).unwrap();
    assert_eq!(doc["tools"][0]["hooks"][0]["phase"], "pre");
    assert_eq!(doc["tools"][0]["hooks"][0]["rewrites"], false);
    assert_eq!(doc["tools"][0]["hooks"][2]["rewrites"], true);
    assert_eq!(doc["coverage"][0]["rule"], "rewrites_ordered");
    // `Desk` has the agent's `limit` and the tool's own `limit` on `pay`:
    // the rule, added to its policy, names them (chain positions 0 and 2).
    let mut desk = declared::Desk::policy();
    assert_eq!(
        rewrites(&desk, "pay"),
        [own(true), ("audit".to_owned(), true), own(true)]
    );
    desk.coverage
        .to_mut()
        .push(CoverageRule::new(CoverageKind::RewritesOrdered, "*", &[]));
    assert_eq!(
        coverage_problem(&desk, 2, 0),
        Some((0, CoverageProblem::Unordered(0, 2)))
    );
    // `read` has one list's rewriters only (the agent's `audit`).
    assert_eq!(coverage_problem(&desk, 2, 1), None);
}
