//! `approval_or_guard(match = "meta:risk=high")`: `pay` is risky (its
//! `Tool::META`, which only the compiler reads) and nothing guards it or
//! asks for approval; `refund` asks. One error, on the rule, naming `pay`.

/// Pays.
#[hookwire::tool(meta(risk = "high"))]
fn pay(amount: u32) -> String {
    format!("paid {amount}")
}

/// Refunds.
#[hookwire::tool(needs_approval, meta(risk = "high"))]
fn refund(amount: u32) -> String {
    format!("refunded {amount}")
}

#[hookwire::agent(
    name = "desk",
    instruction = "Pay.",
    function_tools = [pay, refund],
    coverage = [approval_or_guard(match = "meta:risk=high")],
)]
struct Desk;

fn main() {
    let _ = Desk::new();
}
