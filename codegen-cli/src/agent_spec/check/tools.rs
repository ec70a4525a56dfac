//! The tools of an agent: one name per tool, and MCP tool filters that
//! name a declared server.

use std::collections::HashMap;

use super::{SpecError, SpecField};
use crate::spec::AgentSpec;

/// Checks that the key `server` of an MCP tool filter (`tools:` in a card,
/// `tools(..)` in `#[agent]`) names one of the agent's `servers`: a filter
/// for a server the agent does not have would leave every tool of the
/// server it meant unfiltered.
///
/// ```
/// use hookwire_codegen::spec::check_mcp_filter_server;
///
/// let servers = ["time".to_owned()];
/// assert!(check_mcp_filter_server("time", &servers).is_ok());
/// assert_eq!(
///     check_mcp_filter_server("tiem", &servers).unwrap_err(),
///     "tool filter for unknown server `tiem`: the agent's `servers` are `time`, so this filter would filter nothing and leave every tool of the server it meant exposed; did you mean `time`?"
/// );
/// ```
pub fn check_mcp_filter_server(server: &str, servers: &[String]) -> Result<(), String> {
    if servers.iter().any(|s| s == server) {
        return Ok(());
    }
    let declared = if servers.is_empty() {
        "the agent has no `servers`".to_owned()
    } else {
        format!(
            "the agent's `servers` are {}",
            servers
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let hint = match crate::spec::did_you_mean(server, servers.iter().map(String::as_str)) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => "; add the server to `servers`, or remove the filter".to_owned(),
    };
    Err(format!(
        "tool filter for unknown server `{server}`: {declared}, so this filter would filter nothing and leave every tool of the server it meant exposed{hint}"
    ))
}

/// The tool names of one agent seen so far: each name may be given once.
#[derive(Debug, Clone, Default)]
pub struct UniqueToolNames {
    seen: HashMap<String, usize>,
}

impl UniqueToolNames {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `name` as the tool at `index`; when the name is taken, the
    /// index of the first tool with it.
    pub fn insert(&mut self, name: &str, index: usize) -> Result<(), usize> {
        match self.seen.get(name) {
            Some(first) => Err(*first),
            None => {
                self.seen.insert(name.to_owned(), index);
                Ok(())
            }
        }
    }

    /// The message for a second tool named `name` in agent `agent`.
    pub fn duplicate_message(name: &str, agent: &str) -> String {
        format!("duplicate tool name `{name}` in agent `{agent}`")
    }
}

impl AgentSpec {
    /// Every MCP tool filter names one of the agent's `servers`.
    pub(super) fn check_mcp_filters(&self, out: &mut Vec<SpecError>) {
        for (i, filter) in self.mcp_tools.iter().enumerate() {
            if let Err(message) = check_mcp_filter_server(&filter.server, &self.servers) {
                out.push(SpecError::new(SpecField::McpTools(i), message));
            }
        }
    }

    /// Each tool name, function tools' then child agents', is given once.
    pub(super) fn check_tool_names(&self, out: &mut Vec<SpecError>) {
        let mut names = UniqueToolNames::new();
        let tools = self.function_tools.iter().map(|t| t.name.clone());
        let agents = self.agents.iter().map(|a| a.tool_name());
        let fields = (0..self.function_tools.len())
            .map(SpecField::FunctionTool)
            .chain((0..self.agents.len()).map(SpecField::Agent));
        let all: Vec<(SpecField, String)> = fields.zip(tools.chain(agents)).collect();
        for (i, (field, name)) in all.iter().enumerate() {
            if let Err(first) = names.insert(name, i) {
                let first = all[first].0;
                out.push(SpecError {
                    field: *field,
                    message: format!(
                        "{}: {}",
                        UniqueToolNames::duplicate_message(name, &self.name),
                        self.duplicate_advice(*field, first)
                    ),
                    first: Some(first),
                });
            }
        }
    }

    /// What to change when the entries `second` and `first` give an agent the
    /// same tool name: the same tool or child listed twice, or two tools that
    /// take one name.
    fn duplicate_advice(&self, second: SpecField, first: SpecField) -> String {
        let place = |field: SpecField| match field {
            SpecField::FunctionTool(_) | SpecField::Agent(_) => format!("`{field}`"),
            _ => "another entry".to_owned(),
        };
        let same = match (second, first) {
            (SpecField::FunctionTool(a), SpecField::FunctionTool(b)) => {
                let ty = |i: usize| self.function_tools.get(i).map(|t| t.ty.as_str());
                ty(a).is_some() && ty(a) == ty(b)
            }
            (SpecField::Agent(a), SpecField::Agent(b)) => {
                let name = |i: usize| self.agents.get(i).map(|c| c.name.as_str());
                name(a).is_some() && name(a) == name(b)
            }
            _ => false,
        };
        if same {
            format!("it is also {}; list it once", place(first))
        } else {
            format!(
                "{} has this name too; each tool of an agent needs its own name: give one of them another `name = \"...\"`",
                place(first)
            )
        }
    }
}
