//! `guards_fail_closed`: a guard that fails open is one error on the rule,
//! naming the tool and the hook; a rule name that does not exist is one
//! error on it, with the nearest name.

use hookwire::{Decision, ToolArgs, ToolContext};

/// Reads.
#[hookwire::tool]
fn read(key: String) -> String {
    key
}

/// Checks.
#[hookwire::hook]
async fn check(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
    Decision::Continue
}

#[hookwire::agent(
    name = "desk",
    instruction = "Read.",
    function_tools = [read],
    tool_hooks = [check(on_failure = "open", timeout_ms = 50)],
    coverage = [guards_fail_closed],
)]
struct Desk;

#[hookwire::agent(
    name = "typo",
    instruction = "Read.",
    function_tools = [read],
    coverage = [guards_fail_close],
)]
struct Typo;

fn main() {
    let _ = (Desk::new(), Typo::new());
}
