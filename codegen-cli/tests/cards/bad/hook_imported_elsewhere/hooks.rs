//! Hooks.
use hookwire::ToolContext;
use std::fmt::Result as Outcome;

/// Stamps.
pub async fn stamp(cx: &mut ToolContext, outcome: &mut Outcome) {
    let _ = (cx, outcome);
}
