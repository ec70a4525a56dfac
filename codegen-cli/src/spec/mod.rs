//! The shared specification: the vocabulary both front ends (the `#[agent]`
//! macro and AgentCards) lower to, and that the runtime evaluates.

mod matcher;
mod source;

pub use matcher::{MatchTarget, Matcher, MatcherError};
pub use source::{ToolSource, UnknownToolSource};
