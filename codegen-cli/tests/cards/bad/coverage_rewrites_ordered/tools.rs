//! `refund` rewrites its own arguments (`clamp`); the agents add hooks.
use hookwire::declare::ArgsOf;
use hookwire::{Decision, ToolArgs, ToolContext};

/// Refunds `amount` to `to`.
#[hookwire::tool(tool_hooks = [clamp])]
pub fn refund(to: String, amount: u64) -> String {
    format!("refunded {amount} to {to}")
}

/// Pays `amount` to `to`.
#[hookwire::tool]
pub fn pay(to: String, amount: u64) -> String {
    format!("paid {amount} to {to}")
}

/// Caps a refund at 50: rewrites.
#[hookwire::hook]
pub async fn clamp(_cx: &mut ToolContext, args: &mut ArgsOf<refund>) -> Decision {
    args.amount = args.amount.min(50);
    Decision::Continue
}

/// Reads any tool's arguments as JSON, and may rewrite them.
pub async fn normalize(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = args.get("to");
    Decision::Continue
}

/// Reads a refund's arguments: never rewrites them.
pub async fn watch(_cx: &mut ToolContext, args: &ArgsOf<refund>) -> Decision {
    let _ = &args.to;
    Decision::Continue
}
