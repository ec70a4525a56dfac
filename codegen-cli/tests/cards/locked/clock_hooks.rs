//! Typed hooks over the argument types that the lock beside this file
//! gives the time server's tools: the generated module `mcp_types` holds
//! them (this file is a module of the generated `__rust_refs`, its
//! sibling).

use hookwire::{Decision, ToolContext};

use super::super::mcp_types::{TimeConvertTime, TimeGetCurrentTime};

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
