//! The names a run is given that must select something: the tools its
//! approvals name (required, sticky) and its request hooks' tools and
//! settings. Checked when a run starts or resumes, before anything runs.

use super::{RunError, Runner};
use crate::agent::as_tool::agent_tool_name;
use crate::agent::decl::Agent;
use crate::agent::lifecycle::LifecycleHooks;
use crate::context::ToolSource;
use hookwire_chain::toolset::ToolSet;

/// Why a run was refused before it started: a name it was given selects
/// nothing, or a request hook is invalid. Nothing ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// A tool name selects no tool of the agent (or a path names a child
    /// agent it does not have).
    #[error(
        "{what} names `{name}`, which selects no tool of agent `{agent}`{}; a name that \
         selects nothing would leave the tool it meant unguarded, so nothing ran",
        hint(.suggestion)
    )]
    UnknownTool {
        /// Where the name is given (`Approvals::require`, a sticky
        /// decision, a request hook).
        what: &'static str,
        /// The name as given (scoped: `ny/pay` for the child `ny`'s tool).
        name: String,
        /// The agent whose tools it was checked against.
        agent: String,
        /// The nearest name the agent has, if one is near.
        suggestion: Option<String>,
    },
    /// A request hook that cannot run as written.
    #[error("request hook on `{tool}` of agent `{agent}`: {message}")]
    RequestHook {
        /// The agent.
        agent: String,
        /// The hook's tool.
        tool: String,
        /// What is wrong.
        message: String,
    },
}

fn hint(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default()
}

impl<A: Agent, H: LifecycleHooks> Runner<A, H> {
    /// Checks the names this run was given against the agent's tools: the
    /// approvals' (when they changed since the last check: a run given
    /// none reads one number) and the request hooks'.
    #[inline]
    pub(super) fn check_names(&mut self) -> Result<(), RunError> {
        let generation = self.conv.approvals.names_generation();
        if generation == self.names_checked && self.agent.config().request_hooks.is_empty() {
            return Ok(());
        }
        self.check_given_names(generation)
            .map_err(|e| RunError::Setup(Box::new(e)))
    }

    /// [`check_names`](Self::check_names) when there is something to
    /// check.
    #[cold]
    #[inline(never)]
    fn check_given_names(&mut self, generation: u64) -> Result<(), SetupError> {
        if generation != self.names_checked {
            self.check_approval_names()?;
            self.names_checked = generation;
        }
        if !self.agent.config().request_hooks.is_empty() {
            self.check_request_hooks()?;
        }
        Ok(())
    }

    /// Each name the approvals hold for this agent's level (a root run:
    /// all; a child's run: those under its path, `ny/..`) selects a tool,
    /// or a child agent whose run checks the rest.
    fn check_approval_names(&self) -> Result<(), SetupError> {
        let level = self.scope.scoped_tool("");
        let tools = self.agent.tools();
        for (what, name) in self.conv.approvals.named_tools() {
            let Some(rest) = name.strip_prefix(level.as_str()) else {
                continue;
            };
            let known = match rest.split_once('/') {
                None => tools.contains(rest) || self.on_absent_server(rest),
                Some((child, _)) => {
                    tools.source(&agent_tool_name(child)) == Some(ToolSource::Agent)
                }
            };
            if !known {
                return Err(self.unknown(what, &name, rest, &level));
            }
        }
        Ok(())
    }

    /// Whether `name` (`server__tool`) is a tool of an MCP server the agent
    /// declares and has no tool of in its tool set: a server not connected
    /// (its tools are known once it is; an injection of one is skipped,
    /// logged, and a required one never runs).
    fn on_absent_server(&self, name: &str) -> bool {
        let servers = &self.agent.config().servers;
        let Some((server, _)) = name.split_once(hookwire_spec::SERVER_SEPARATOR) else {
            return false;
        };
        if !servers.iter().any(|s| s == server) {
            return false;
        }
        let prefix = format!("{server}{}", hookwire_spec::SERVER_SEPARATOR);
        !self
            .agent
            .tools()
            .definitions()
            .iter()
            .any(|d| d.name.starts_with(&prefix))
    }

    /// The error for `name` (`rest` below this agent's `level`), with the
    /// nearest tool or child path.
    fn unknown(&self, what: &'static str, name: &str, rest: &str, level: &str) -> SetupError {
        let definitions = self.agent.tools().definitions();
        let candidates: Vec<String> = definitions
            .iter()
            .map(|d| {
                let child = self.agent.tools().source(&d.name) == Some(ToolSource::Agent);
                match d.name.strip_prefix(hookwire_spec::AGENT_TOOL_PREFIX) {
                    Some(agent) if child && rest.contains('/') => {
                        let tail = rest.split_once('/').map_or("", |(_, t)| t);
                        format!("{agent}/{tail}")
                    }
                    _ => d.name.to_string(),
                }
            })
            .collect();
        let suggestion = hookwire_spec::did_you_mean(rest, candidates.iter().map(String::as_str))
            .map(|s| format!("{level}{s}"));
        SetupError::UnknownTool {
            what,
            name: name.to_owned(),
            agent: self.agent.config().name.to_string(),
            suggestion,
        }
    }

    /// Each request hook fires at an event the loop injects at, with a
    /// positive TTL, and calls a tool the agent has.
    fn check_request_hooks(&self) -> Result<(), SetupError> {
        let tools = self.agent.tools();
        for hook in &self.agent.config().request_hooks {
            let bad = |message: String| SetupError::RequestHook {
                agent: self.agent.config().name.to_string(),
                tool: hook.tool_name.clone(),
                message,
            };
            hook.validate().map_err(bad)?;
            let name = hook.resolve_name(tools);
            if !tools.contains(&name) && !self.on_absent_server(&name) {
                let definitions = tools.definitions();
                let suggestion =
                    hookwire_spec::did_you_mean(&name, definitions.iter().map(|d| &*d.name))
                        .map(str::to_owned);
                return Err(SetupError::UnknownTool {
                    what: "a request hook",
                    name,
                    agent: self.agent.config().name.to_string(),
                    suggestion,
                });
            }
        }
        Ok(())
    }
}
