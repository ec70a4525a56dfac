//! The integration tests of the macros, the generated code and the cards,
//! one binary (each test binary links tokio, rmcp and reqwest). One module
//! per topic. Two stay binaries of their own: `ui.rs` (the trybuild
//! compile-fail suite) and `deep_matched_32.rs`, which needs
//! `#![recursion_limit = "256"]` while `deep_matched` and `deep_agents`
//! here prove their depth under rustc's default limit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../deep_common/mod.rs"]
mod deep_common;

// `codegen-cli/tests/cards/good/lifecycle.rs` logs through
// `crate::lifecycle_log`.
use cards_e2e::lifecycle_log;

mod availability;
mod cards_e2e;
mod deep_agents;
mod deep_matched;
mod dispatch_names;
mod dynamic_hooks;
mod lifecycle_decl;
mod macros;
mod readme_approvals;
#[path = "../../../runtime/tests/agent_common/seeing.rs"]
mod seeing;
mod sessions;
mod slots;
mod trace;
