//! The tools and typed hooks of the `Typed-Desk` card: the hooks take
//! `refund`'s arguments as their Rust type, one as a plain function (the
//! card's adapter calls it), one marked `#[hookwire::hook]`.
use hookwire::declare::ArgsOf;
use hookwire::{Decision, ToolContext};

/// Refunds `amount` to `to`.
#[hookwire::tool]
pub fn refund(to: String, amount: u64) -> String {
    format!("refunded {amount} to {to}")
}

/// Pays `amount` to `to`.
#[hookwire::tool]
pub fn pay(to: String, amount: u64) -> String {
    format!("paid {amount} to {to}")
}

/// Refuses refunds to mallory, naming the function it guards.
pub async fn no_refund_to_mallory(cx: &mut ToolContext, args: &ArgsOf<refund>) -> Decision {
    if args.to == "mallory" {
        let function = cx.function().unwrap_or("none");
        Decision::Deny(format!("no refund to {} by {function}", args.to))
    } else {
        Decision::Continue
    }
}

/// Caps a refund at 50.
#[hookwire::hook]
pub async fn cap_refund(_cx: &mut ToolContext, args: &mut ArgsOf<refund>) -> Decision {
    args.amount = args.amount.min(50);
    Decision::Continue
}
