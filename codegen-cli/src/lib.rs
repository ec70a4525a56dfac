//! The shared half of hookwire's code generation.
//!
//! * [`spec`]: what both front ends lower to and what the runtime agrees with:
//!   tool sources and [matchers](spec::Matcher). This part has no heavy
//!   dependencies; the `hookwire` runtime uses it to evaluate matchers at run
//!   time, and the emitter uses the very same code to resolve them while
//!   generating a chain, so the two can never disagree.
//! * With the `emit` feature: card loading, signature checks and the emitter.
//! * With the `cli` feature (default): the `cardgen` binary.

#[cfg(feature = "emit")]
pub mod lower;
pub mod spec;

#[cfg(feature = "emit")]
mod builder;
#[cfg(feature = "emit")]
pub mod cards;
#[cfg(feature = "emit")]
pub mod emit;
#[cfg(feature = "emit")]
pub mod yaml;
#[cfg(feature = "emit")]
pub use builder::{Builder, DEFAULT_SUBDIR};
