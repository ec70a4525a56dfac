//! The tools and the guard of README.md's shop agent, for its card
//! (`shop.md`). Each item is the README's, verbatim
//! (`codegen-cli/tests/suite/docs.rs` checks it).

use hookwire::declare::ArgsOf;
use hookwire::{Decision, ToolContext};

/// Looks up the price of `item`.
#[hookwire::tool]
pub fn price(item: String) -> String {
    format!("{item}: 30")
}

/// Pays `amount` to the vendor `to`; a person approves each payment.
#[hookwire::tool(needs_approval)]
pub fn pay(to: String, amount: u64) -> String {
    format!("paid {amount} to {to}")
}

/// The guard: no payment to a vendor on the blocklist ever runs. It reads
/// `pay`'s arguments as their Rust type (a typed hook).
#[hookwire::hook]
pub async fn blocklist(_cx: &mut ToolContext, args: &ArgsOf<pay>) -> Decision {
    if args.to == "mallory" {
        Decision::Deny("mallory is on the blocklist".into())
    } else {
        Decision::Continue
    }
}
