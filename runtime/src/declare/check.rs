//! Type-level checks that generated code calls: the chain's
//! (`hookwire_chain::check`) and the agent layer's.

pub use hookwire_chain::check::*;

use crate::agent::Agent;

/// Checks an `agents` entry.
pub const fn agent<T: Agent>(_: &T) {}
