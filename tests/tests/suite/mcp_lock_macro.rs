//! `#[agent(mcp_lock = "..")]`: the macro reads the lock (relative to the
//! crate's folder) and checks the matchers against the locked tools: a
//! matcher that selects one compiles, one that selects none is a compile
//! error (`tests/ui/agent/agent_mcp_lock_typo.rs`).

use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Audits.
#[hookwire::hook]
async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    next.run(cx, args).await
}

/// Moves money, audited; the lock (the codegen suite's, beside its bank
/// card) pins `bank`'s tools.
#[hookwire::agent(
    name = "teller",
    servers = ["bank"],
    mcp_lock = "../codegen-cli/tests/cards/bad/match_locked_mcp_tool/hookwire.lock",
    tool_hooks = [audit(match = "bank__transfer")],
)]
pub struct Teller;

#[test]
fn a_locked_servers_hooks_compile_and_are_decided_per_call() {
    let policy: hookwire::serde_json::Value =
        hookwire::serde_json::from_str(&Teller::policy().to_json()).unwrap();
    // The server's tools are one entry, its hooks decided on each call by
    // their matchers (the lock checked them when the agent compiled).
    let bank = &policy["tools"][0];
    assert_eq!(bank["name"], "bank__*", "{policy}");
    assert_eq!(bank["kind"], "mcp");
    assert_eq!(bank["hooks"][0]["name"], "audit");
    assert_eq!(bank["hooks"][0]["matcher"], "bank__transfer");
    assert_eq!(bank["hooks"][0]["selected"], "call");
}
