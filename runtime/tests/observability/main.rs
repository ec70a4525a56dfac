//! The tests that capture `tracing` output, in a binary of their own: each
//! sets its own subscriber for its thread (`tracing::subscriber::set_default`),
//! and tracing-core decides once per span or event whether anyone listens.
//! While exactly one such subscriber is alive it asks only the thread that
//! reaches the span first, so a test of `suite` running the same code on
//! another thread (with no subscriber) would switch the span off for good
//! and these tests would miss it. Nothing else runs here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../agent_common/mod.rs"]
mod agent_common;

mod agent_tracing;
mod audit;
#[cfg(feature = "otel")]
mod otel;
mod secrets;
