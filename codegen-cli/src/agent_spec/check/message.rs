//! The error both front ends report for a hook that selects no tool.

use super::{HookPlace, UnmatchedHook};
use crate::spec::{AgentSpec, SERVER_SEPARATOR, ToolMeta, nearest_names};

impl UnmatchedHook<'_> {
    /// The error both front ends report: the hook, its matcher, the nearest
    /// tool names of `spec`, and the fix.
    pub fn message(&self, spec: &AgentSpec) -> String {
        let names = self.tool_names(spec);
        let scope = self.scope(spec, names.is_empty());
        let word = self.part.as_deref().unwrap_or(&self.pattern);
        let hint = self.hint(spec, word, names);
        let run_time = self.note(spec, word);
        match &self.part {
            None => format!(
                "hook `{}` with match `{}` selects no tool: it does not match {scope}{hint} A hook that selects no tool would never run; fix the pattern, or remove the hook{run_time}",
                self.hook, self.pattern,
            ),
            Some(part) => format!(
                "hook `{}` with match `{}`: its part `{part}` selects no tool: it does not match {scope}{hint} Every alternative of `a|b` and the pattern under `!` must select a tool, or a typo would drop or widen the guard; fix the part, or remove it{run_time}",
                self.hook, self.pattern,
            ),
        }
    }

    /// The names of the tools the hook could apply to: its own tool for an
    /// entry hook, else the agent's static tools.
    fn tool_names(&self, spec: &AgentSpec) -> Vec<String> {
        match self.place {
            HookPlace::ToolEntry { tool, .. } => spec
                .function_tools
                .get(tool)
                .map(|t| vec![t.name.clone()])
                .unwrap_or_default(),
            _ => spec
                .static_tools()
                .into_iter()
                .map(|(n, _)| n)
                .chain(spec.locked_mcp_tools().into_iter().map(|(n, _, _)| n))
                .collect(),
        }
    }

    /// What the matcher was checked against (`no_tools`: the agent has no
    /// static tool).
    fn scope(&self, spec: &AgentSpec, no_tools: bool) -> String {
        match self.place {
            HookPlace::ToolEntry { tool, .. } => format!(
                "the tool `{}` it is declared on",
                spec.function_tools
                    .get(tool)
                    .map_or("", |t| t.name.as_str())
            ),
            _ if no_tools => format!("any tool of agent `{}`, which has none", spec.name),
            _ => format!("any tool of agent `{}`", spec.name),
        }
    }

    /// The nearest names to `word` (the matcher, or its part that selects
    /// no tool) among `names` and the same tool of each unlocked server, or
    /// the metadata the tools declare, as the end of the first sentence.
    fn hint(&self, spec: &AgentSpec, word: &str, mut names: Vec<String>) -> String {
        // `tiem__now`: the same tool of each declared server whose tools
        // are not known (a locked server's are among `names`).
        if let (false, Some((_, tool))) = (
            matches!(self.place, HookPlace::ToolEntry { .. }),
            word.split_once(SERVER_SEPARATOR),
        ) {
            names.extend(
                spec.unlocked_servers()
                    .iter()
                    .map(|s| format!("{s}{}{tool}", SERVER_SEPARATOR)),
            );
        }
        let meta = word.contains("meta:");
        let declared = self.declared_meta(spec);
        let near = if meta {
            declared.clone().unwrap_or_default()
        } else {
            nearest_names(word, &names)
                .into_iter()
                .map(str::to_owned)
                .collect()
        };
        match near.as_slice() {
            [] if meta && declared.is_none() => {
                " by the metadata each declares (its `Tool::META`, `#[tool(meta(..))]`).".to_owned()
            }
            [] if meta => "; no tool declares metadata.".to_owned(),
            more if meta => format!(
                "; the tools declare {}.",
                more.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            [] => ".".to_owned(),
            [one] => format!("; did you mean `{one}`?"),
            more => format!(
                "; did you mean one of {}?",
                more.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Why the part may be meant for something else: metadata, the final
    /// answer, tools registered or discovered at run time.
    fn note(&self, spec: &AgentSpec, word: &str) -> &'static str {
        let meta = word.contains("meta:");
        let entry = matches!(self.place, HookPlace::ToolEntry { .. });
        if meta {
            " (a `meta:key` or `meta:key=value` part selects the tools that declare that metadata: `#[tool(meta(key = \"value\"))]` on a function tool, `meta(..)` on an `agents` entry)."
        } else if word == "step:final" {
            " (`step:final` is the final answer, which only a lifecycle hook sees; a tool hook runs on tool calls, `step:tool`)."
        } else if entry {
            "."
        } else if word.contains("source:runtime") && !spec.runtime_tools {
            " (`source:runtime` selects tools registered at run time, which need the agent's `runtime_tools`)."
        } else if !spec.servers.is_empty() && spec.unlocked_servers().is_empty() {
            " (the agent's MCP servers are locked: their tools are the ones in `hookwire.lock`; when a server changed its tools, review them and write the lock again with `cardgen mcp lock`)."
        } else if spec.servers.is_empty() {
            " (a hook meant for tools discovered at run time needs the agent's `servers`)."
        } else {
            " (a part meant for MCP tools names a declared server, as in `server__tool`, or is `source:mcp`)."
        }
    }
}

impl UnmatchedHook<'_> {
    /// The metadata the tools this hook could apply to declare, as
    /// `meta:key=value`, in order, each once; `None` when the spec does not
    /// know the metadata of one of them (a tool listed in `#[agent]`).
    fn declared_meta(&self, spec: &AgentSpec) -> Option<Vec<String>> {
        let metas: Vec<ToolMeta> = match self.place {
            HookPlace::ToolEntry { tool, .. } => {
                vec![spec.function_tools.get(tool)?.meta.clone()?]
            }
            _ => spec
                .function_tools
                .iter()
                .map(|t| t.meta.clone())
                .chain(spec.agents.iter().map(|a| Some(a.meta.clone())))
                .chain(spec.locked_mcp_tools().into_iter().map(|(_, _, m)| m))
                .collect::<Option<_>>()?,
        };
        let mut out: Vec<String> = Vec::new();
        for (k, v) in metas.iter().flat_map(|m| m.iter()) {
            let pair = format!("meta:{k}={v}");
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
        Some(out)
    }
}
