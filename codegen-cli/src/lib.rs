//! The shared half of hookwire's code generation.
//!
//! * [`spec`]: the `hookwire-spec` crate, re-exported: what both front ends
//!   lower to and what the runtime agrees with (tool sources, matchers,
//!   tool names, the agent spec and its checks). The `hookwire` runtime
//!   depends on that crate alone, so it evaluates matchers at run time with
//!   the very code the emitter resolves them with.
//! * With the `emit` feature: card loading, signature checks and the emitter.
//! * With the `cli` feature (default): the `cardgen` binary.

#[cfg(feature = "emit")]
pub mod lower;
pub use hookwire_spec as spec;

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
