use hookwire::declare::ArgsOf;
use hookwire::{Decision, ToolContext};

/// Refunds.
#[hookwire::tool]
pub fn refund(to: String, amount: u64) -> String {
    format!("refunded {amount} to {to}")
}

/// Pays.
#[hookwire::tool]
pub fn pay(to: String, amount: u64) -> String {
    format!("paid {amount} to {to}")
}

/// Caps refunds.
pub async fn cap_refund(_cx: &mut ToolContext, args: &mut ArgsOf<refund>) -> Decision {
    args.amount = args.amount.min(50);
    Decision::Continue
}
