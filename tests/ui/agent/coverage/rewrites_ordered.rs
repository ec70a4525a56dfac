//! `rewrites_ordered`: `refund` has a rewriting hook of its own (`clamp`,
//! `&mut ArgsOf<refund>`) and the agent adds another (`normalize`, JSON
//! `&mut ToolArgs`): they run as the lists nest, an order nobody wrote.
//! One error, on the rule, naming the tool and both hooks (each hook's
//! `Hook::REWRITES` is read by the compiler from its type). The second
//! agent's hook only reads (`&ArgsOf<refund>`): it compiles.

use hookwire::declare::ArgsOf;
use hookwire::{Decision, ToolArgs, ToolContext};

/// Caps a refund.
#[hookwire::hook]
async fn clamp(_cx: &mut ToolContext, args: &mut ArgsOf<refund>) -> Decision {
    args.amount = args.amount.min(100);
    Decision::Continue
}

/// Refunds.
#[hookwire::tool(tool_hooks = [clamp])]
fn refund(amount: u32) -> String {
    format!("refunded {amount}")
}

/// Reads and may rewrite any tool's arguments, as JSON.
#[hookwire::hook]
async fn normalize(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
    let _ = args.get("amount");
    Decision::Continue
}

/// Reads a refund.
#[hookwire::hook]
async fn watch(_cx: &mut ToolContext, args: &ArgsOf<refund>) -> Decision {
    let _ = args.amount;
    Decision::Continue
}

#[hookwire::agent(
    name = "desk",
    instruction = "Refund.",
    function_tools = [refund],
    tool_hooks = [normalize],
    coverage = [rewrites_ordered],
)]
struct Desk;

#[hookwire::agent(
    name = "watched",
    instruction = "Refund.",
    function_tools = [refund],
    tool_hooks = [watch(match = "refund")],
    coverage = [rewrites_ordered],
)]
struct Watched;

fn main() {
    let _ = Desk::new();
    let _ = Watched::new();
}
