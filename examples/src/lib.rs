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

/// The guide's pages (`docs/*.md`), one doctest item per page: every Rust
/// block of a page compiles and runs with the others of this crate (one
/// doctest build, edition 2024 merges them). That each page states the
/// crates its blocks use is checked by `codegen-cli/tests/suite/docs.rs`.
#[cfg(doctest)]
pub mod guide {
    /// docs/hooks.md
    #[doc = include_str!("../../docs/hooks.md")]
    pub struct Hooks;
    /// docs/tools.md
    #[doc = include_str!("../../docs/tools.md")]
    pub struct Tools;
    /// docs/cards.md
    #[doc = include_str!("../../docs/cards.md")]
    pub struct Cards;
    /// docs/approvals.md
    #[doc = include_str!("../../docs/approvals.md")]
    pub struct Approvals;
    /// docs/models.md
    #[doc = include_str!("../../docs/models.md")]
    pub struct Models;
    /// docs/streaming.md
    #[doc = include_str!("../../docs/streaming.md")]
    pub struct Streaming;
    /// docs/mcp.md
    #[doc = include_str!("../../docs/mcp.md")]
    pub struct Mcp;
    /// docs/durable.md
    #[doc = include_str!("../../docs/durable.md")]
    pub struct Durable;
    /// docs/observability.md
    #[doc = include_str!("../../docs/observability.md")]
    pub struct Observability;
    /// docs/console.md
    #[doc = include_str!("../../docs/console.md")]
    pub struct Console;
    /// docs/performance.md
    #[doc = include_str!("../../docs/performance.md")]
    pub struct Performance;
    /// docs/troubleshooting.md
    #[doc = include_str!("../../docs/troubleshooting.md")]
    pub struct Troubleshooting;
}
