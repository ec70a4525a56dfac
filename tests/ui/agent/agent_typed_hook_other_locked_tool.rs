use hookwire::{Decision, ToolContext};

/// Asks for UTC: typed over `time__get_current_time`'s generated arguments.
#[hookwire::hook]
async fn in_utc(_cx: &mut ToolContext, args: &mut clock_mcp::TimeGetCurrentTime) -> Decision {
    args.timezone = "UTC".to_owned();
    Decision::Continue
}

// The glob selects both locked tools: `time__convert_time`'s arguments are
// another type.
#[hookwire::agent(
    name = "clock",
    servers = ["time"],
    mcp_lock = "../../../../codegen-cli/tests/cards/locked/hookwire.lock",
    tool_hooks = [in_utc(match = "time__*")],
)]
struct Clock;

fn main() {
    let _ = Clock::new();
}
