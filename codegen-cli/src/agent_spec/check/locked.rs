//! The MCP tools an agent's servers are pinned to by a lock
//! (`hookwire.lock`, [`AgentSpec::mcp_lock`]): known when the agent is
//! declared, so that its matchers are checked against them as against its
//! function tools.

use super::verdict::StaticTool;
use crate::spec::{AgentSpec, MatchTarget, Matcher, ToolSource, mcp_tool_name};

impl AgentSpec {
    /// The MCP tools the lock pins for the agent's servers, after its
    /// `tools:` filters: each as the model sees it (`server__tool`), with
    /// its annotations as metadata. Empty without a lock.
    pub fn locked_mcp_tools(&self) -> Vec<StaticTool> {
        let Some(lock) = &self.mcp_lock else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for server in &self.servers {
            let Some(tools) = lock.server(server) else {
                continue;
            };
            let globs: Vec<Matcher> = self
                .mcp_tools
                .iter()
                .filter(|f| f.server == *server)
                .flat_map(|f| f.globs.iter().filter_map(|g| Matcher::glob(g).ok()))
                .collect();
            let filtered = self.mcp_tools.iter().any(|f| f.server == *server);
            for (name, tool) in tools {
                let target = MatchTarget::new(name, ToolSource::Mcp);
                if filtered && !globs.iter().any(|g| g.matches(target)) {
                    continue;
                }
                out.push((
                    mcp_tool_name(server, name),
                    ToolSource::Mcp,
                    Some(tool.meta()),
                ));
            }
        }
        out
    }

    /// The agent's servers the lock does not pin (all of them without a
    /// lock): their tools are known only at run time.
    pub fn unlocked_servers(&self) -> Vec<String> {
        self.servers
            .iter()
            .filter(|s| {
                self.mcp_lock
                    .as_ref()
                    .is_none_or(|lock| lock.server(s).is_none())
            })
            .cloned()
            .collect()
    }
}
