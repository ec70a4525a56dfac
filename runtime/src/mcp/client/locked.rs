//! The servers' tools checked against the lock (`McpConfig::with_lock`):
//! which differ, and what a run does about them.

use std::sync::Arc;

use hookwire_spec::{McpLock, OnChange, ToolDrift};

use super::server::Server;
use super::{Inner, McpServers, read};
use crate::mcp::config::McpConfig;

impl McpServers {
    /// The tools the servers list now that differ from the lock
    /// ([`McpConfig::with_lock`]): changed and new tools, none of them
    /// offered. Servers in declared order; empty without a lock.
    pub fn refused(&self) -> Vec<ToolDrift> {
        self.inner
            .servers
            .iter()
            .flat_map(|s| read(&s.refused).clone())
            .collect()
    }

    /// What a run does with a refused tool: the lock's `on_change`
    /// (`None` without a lock).
    pub fn on_change(&self) -> Option<OnChange> {
        self.inner.lock.as_ref().map(|l| l.on_change)
    }
}

impl Inner {
    /// How `tool`, as `server` lists it, differs from the lock (logged):
    /// `None` when it is the locked tool, or the server is not locked.
    pub(super) fn differs_from_lock(
        &self,
        server: &Server,
        tool: &rmcp::model::Tool,
    ) -> Option<ToolDrift> {
        let lock = self.lock.as_deref()?;
        let drift = lock.check_tool(
            &server.name,
            &tool.name,
            &crate::mcp::convert::locked_tool(tool),
        )?;
        tracing::warn!(
            target: "hookwire::mcp",
            server = &*server.name,
            tool = &*tool.name,
            refused = %drift,
            "MCP tool differs from the lock; it is not offered"
        );
        Some(drift)
    }
}

/// The lock of `config`, after a warning for each of its servers the lock
/// does not pin.
pub(super) fn lock_of(config: &McpConfig) -> Option<Arc<McpLock>> {
    let lock = config.shared_lock()?;
    for name in config.names().filter(|n| lock.server(n).is_none()) {
        tracing::warn!(
            target: "hookwire::mcp",
            server = name,
            "MCP server is not in the lock: its tools are not pinned (run `cardgen mcp lock`)"
        );
    }
    Some(lock)
}
