//! The shared half of hookwire's code generation.
//!
//! * [`spec`]: what both front ends lower to and what the runtime agrees
//!   with: the `hookwire-spec` crate (tool sources, matchers, tool names,
//!   the words of a declaration), re-exported, and the agent spec with its
//!   checks, which only code generation reads. The `hookwire` runtime
//!   depends on `hookwire-spec` alone, so it evaluates matchers at run time
//!   with the very code the emitter resolves them with, without compiling
//!   the agent spec.
//! * With the `emit` feature: card loading, signature checks and the emitter.
//! * With the `cli` feature (default): the `cardgen` binary.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent_spec;
#[cfg(feature = "emit")]
#[cfg_attr(docsrs, doc(cfg(feature = "emit")))]
pub mod lower;

/// The shared vocabulary (the `hookwire-spec` crate) and the agent spec
/// with its checks: one path, `spec::X`, for both.
pub mod spec {
    pub use crate::agent_spec::*;
    pub use hookwire_spec::*;
}

#[cfg(feature = "emit")]
mod builder;
#[cfg(feature = "emit")]
#[cfg_attr(docsrs, doc(cfg(feature = "emit")))]
pub mod cards;
#[cfg(feature = "emit")]
#[cfg_attr(docsrs, doc(cfg(feature = "emit")))]
pub mod emit;
#[cfg(feature = "mcp-lock")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-lock")))]
pub mod mcp_lock;
#[cfg(feature = "emit")]
#[cfg_attr(docsrs, doc(cfg(feature = "emit")))]
pub mod yaml;
#[cfg(feature = "emit")]
#[cfg_attr(docsrs, doc(cfg(feature = "emit")))]
pub use builder::{Builder, DEFAULT_SUBDIR};
