//! The integration tests of the macros, the generated code and the cards,
//! one binary (each test binary links tokio, rmcp and reqwest). One module
//! per topic. One stays a binary of its own: `deep_hooks.rs`, whose long
//! chains must compile in a crate of their own, under rustc's default
//! recursion limit (as `deep_agents` and `deep_nesting` here do). The
//! compile-fail suite is the crate `hookwire-ui` (`tests/ui/`).

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
mod deep_nesting;
mod dispatch_names;
mod dynamic_hooks;
mod lifecycle_decl;
mod macros;
mod mcp_lock_macro;
mod mcp_typed_hooks;
mod meta_matchers;
mod readme_approvals;
mod runtime_tools;
#[path = "../../../runtime/tests/agent_common/seeing.rs"]
mod seeing;
mod sessions;
mod settings;
mod slots;
mod trace;
mod typed_hooks;
