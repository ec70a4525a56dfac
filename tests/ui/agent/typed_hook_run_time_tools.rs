use hookwire::declare::ArgsOf;
use hookwire::{Decision, ToolContext};

/// Refunds.
#[hookwire::tool]
fn refund(to: String, amount: u64) -> String {
    format!("refunded {amount} to {to}")
}

/// Caps refunds: typed over `refund`'s arguments.
#[hookwire::hook]
async fn cap_refund(_cx: &mut ToolContext, args: &ArgsOf<refund>) -> Decision {
    let _ = args.amount;
    Decision::Continue
}

// A glob may select tools registered at run time, whose arguments are JSON.
#[hookwire::agent(
    name = "desk",
    function_tools = [refund],
    runtime_tools,
    tool_hooks = [cap_refund(match = "ref*")],
)]
struct Desk;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Desk::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
