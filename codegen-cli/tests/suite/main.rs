//! The card compiler's integration tests, one binary. One module per topic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod build_script;
mod cards;
mod docs;
mod expected;
mod fuzz_corpus;
mod mcp_lock;
mod settings;
