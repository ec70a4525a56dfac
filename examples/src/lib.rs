//! Runnable hookwire examples.
//!
//! The PMO orchestrator from fast-agent's tool-hooks design note is declared
//! twice, once with `#[hookwire::agent]` ([`pmo_macro`]) and once as
//! AgentCards compiled by `cardgen` ([`pmo_cards`]); [`pmo`] runs either on
//! the scripted model (offline) or on an OpenAI-compatible endpoint, and
//! both print the same trace.

pub mod console;
pub mod durable_pmo;
pub mod pmo;
pub mod pmo_cards;
pub mod pmo_macro;
pub mod sse;

/// README.md's Rust examples, compiled and run as doctests
/// (`cargo test --doc -p hookwire-examples`), so the front page cannot
/// drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// codegen-cli/CARDS.md's Rust examples, as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../codegen-cli/CARDS.md")]
pub struct CardsDoctests;
