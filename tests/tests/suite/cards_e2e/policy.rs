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
