//! MCP servers as tool sources, and tool sets as MCP servers (feature `mcp`).
//!
//! # Client: MCP tools behind hooks
//!
//! 1. Declare servers in a configuration file ([`McpConfig`], for example
//!    `hookwire.yaml`): a name and either `command` (a stdio child process)
//!    or `url` (streamable HTTP).
//! 2. [`McpServers::connect`] starts them in parallel, lists their tools
//!    (following pagination) and applies the agent's `tools: {server:
//!    [globs]}` filters ([`McpOptions::filters`]).
//! 3. Each tool is exposed as `server__tool` ([`names`] has the 64-character
//!    cap and the collision rule).
//! 4. [`McpServers::tool_set_with`] gives a [`McpToolSet`]: every call runs
//!    through one chain of hooks (the same [`Hooked`](crate::Hooked),
//!    [`Guarded`](crate::Guarded), [`Pre`](crate::Pre), [`Post`](crate::Post)
//!    types as static tools) around an [`McpCall`], with the context's source
//!    set to `mcp` and its server to the tool's server. Hooks meant for some
//!    tools only are wrapped in [`When`](crate::When), whose matcher is
//!    evaluated at run time.
//! 5. [`ToolSetExt::join`] joins the agent's static tools and its MCP tools
//!    into one tool set; [`McpAgent`] does steps 2 to 5 for an agent
//!    declaration (its `servers:` and `tools:`) and is itself an
//!    [`Agent`](crate::agent::Agent) the agent loop runs.
//!
//! ```no_run
//! use hookwire::{mcp::McpConfig, mcp::McpOptions, mcp::McpServers, mcp::ToolSetExt, When};
//! use hookwire::{chain, CallScope, Decision, HookError, Pre, PreHook, Router, ToolArgs, ToolCall};
//! use hookwire::{ToolContext, ToolSet};
//!
//! struct Utc;
//! impl PreHook for Utc {
//!     async fn before(&self, _: &mut ToolContext, args: &mut ToolArgs) -> Result<Decision, HookError> {
//!         args.insert("timezone", "UTC".into())?;
//!         Ok(Decision::Continue)
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config = McpConfig::load("hookwire.yaml")?;
//! let servers = McpServers::connect(&config, McpOptions::new()).await?;
//! let utc = When::matching("time__*", Pre(Utc))?;
//! let mcp = servers.tool_set_with(|call| chain!(utc => call));
//! let tools = Router::new().join(mcp);
//! let call = ToolCall::new("c1", "time__get_current_time", ToolArgs::from_json("{}"));
//! let result = tools.call(&CallScope::new("demo"), call).await;
//! println!("{}", result.text_content());
//! # Ok(()) }
//! ```
//!
//! Failure handling (servers that do not start, die, or time out) and the
//! reconnect behaviour are described on [`McpServers`].
//!
//! # Server: a tool set over MCP
//!
//! [`serve_stdio`] exposes any [`ToolSet`](crate::ToolSet), each tool behind
//! its own chain, as an MCP server over stdio ([`McpServer`]);
//! [`serve_agent_stdio`] does the same for an agent declaration's tools.

mod agent;
mod client;
mod config;
mod convert;
mod headers;
mod joined;
mod listing;
pub mod names;
mod serve;
mod stdio;
mod toolset;
mod yaml;

pub use agent::{McpAgent, StaticTools};
pub use client::{McpOptions, McpServers, ServerStatus};
pub use config::{
    ConfigError, DEFAULT_CALL_TIMEOUT, DEFAULT_STARTUP_TIMEOUT, McpConfig, ServerSpec, Transport,
};
pub use convert::{
    locked_tool, meta_from_mcp, tool_from_mcp, tool_result_from_mcp, tool_result_to_mcp,
    tool_to_mcp,
};
pub use hookwire_spec::{
    DriftKind, LOCK_FILE, LockAspect, LockedTool, McpLock, OnChange, ToolDrift,
};
pub use joined::{Joined, ToolSetExt};
pub use names::{MAX_NAME_LEN, NameAllocator, exposed_name};
pub use serve::{McpServer, ServeError, serve_agent_stdio, serve_stdio};
pub use toolset::{McpCall, McpToolSet};

/// The MCP implementation hookwire uses, for code that needs its types.
pub use rmcp;
