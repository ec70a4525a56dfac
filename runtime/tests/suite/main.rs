//! The runtime's integration tests, one binary (each test binary links
//! tokio, rmcp and reqwest; one link instead of eighteen). One module per
//! topic. Two binaries stand apart because they depend on process-wide
//! state: `alloc.rs` installs a counting `#[global_allocator]`, and
//! `observability/` captures `tracing` output with a thread's own
//! subscriber, which misses events once another test's thread (with no
//! subscriber) is first to reach a span or event (tracing-core caches a
//! "never" for it while exactly one scoped subscriber is alive).
//!
//! Two tests run one of their siblings in a child process by its full name
//! (`approval_terminal::terminal_child`, `state_resume::resume_child`): a
//! module renamed here must be renamed there too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../agent_common/mod.rs"]
mod agent_common;
#[cfg(feature = "mcp")]
#[path = "../mcp_support/mod.rs"]
mod mcp_support;

mod agent_as_tool;
mod agent_decisions_prop;
mod agent_inject;
mod agent_lifecycle;
mod agent_loop;
mod agent_openai;
mod approval_edit;
mod approval_identity;
mod approval_prop;
mod approval_sticky;
mod approval_terminal;
mod approval_trace;
mod call_ids;
mod chain;
mod deadlines;
mod duplicate_keys;
#[cfg(feature = "durable")]
mod durable_failover;
mod idempotency_key;
mod journal_entries;
mod lifecycle_policy;
mod mcp_agent;
mod mcp_config;
mod mcp_hostile;
mod mcp_lock;
mod mcp_servers;
#[cfg(any(feature = "openai", feature = "providers"))]
mod mock_http;
mod model_retry;
mod providers;
mod run_stream;
mod state_resume;
mod tool_availability;
mod tool_call_timeout;
mod tool_progress;
mod typed_output;
#[cfg(any(feature = "openai", feature = "providers"))]
mod typed_providers;
