//! Typed hooks over the argument types that the lock beside this file
//! gives the time server's tools: the card's module `clock_desk` holds
//! them in `clock_desk_mcp` (this file is a module of the generated
//! `__rust_refs`, a sibling of `clock_desk`).

use hookwire::{Decision, ToolContext};

use super::super::clock_desk::clock_desk_mcp::{TimeConvertTime, TimeGetCurrentTime};

/// Asks every clock for UTC.
pub async fn in_utc(_cx: &mut ToolContext, args: &mut TimeGetCurrentTime) -> Decision {
    args.timezone = "UTC".to_owned();
    Decision::Continue
}

/// Converts only noon.
pub async fn from_noon(_cx: &mut ToolContext, args: &TimeConvertTime) -> Decision {
    if args.time == "12:00" {
        Decision::Continue
    } else {
        Decision::Deny(format!("only noon converts, not {}", args.time))
    }
}
