use hookwire::declare::ArgsOf;
use hookwire::{Decision, ToolContext};

/// Refunds.
#[hookwire::tool]
fn refund(to: String, amount: u64) -> String {
    format!("refunded {amount} to {to}")
}

/// Pays.
#[hookwire::tool]
fn pay(to: String, amount: u64) -> String {
    format!("paid {amount} to {to}")
}

/// Caps refunds: typed over `refund`'s arguments.
#[hookwire::hook]
async fn cap_refund(_cx: &mut ToolContext, args: &mut ArgsOf<refund>) -> Decision {
    args.amount = args.amount.min(50);
    Decision::Continue
}

// `*` attaches it to `pay` too, whose arguments are another type.
#[hookwire::agent(name = "desk", function_tools = [refund, pay], tool_hooks = [cap_refund])]
struct Desk;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Desk::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
