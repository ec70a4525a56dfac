//! Hooks that select no tool: a typo in a matcher must never drop a guard
//! silently. Where each hook with a matcher is, which of them select no
//! tool, and which leave a `meta:` part to the compiler.

use super::verdict::{StaticTool, Verdict, part_verdicts};
use super::{SpecError, SpecField};
use crate::spec::{AgentSpec, Matcher, MetaFormula, SpanInfo, ToolSource};

/// A hook whose matcher selects none of its agent's tools: found by
/// [`AgentSpec::hooks_selecting_no_tool`]. Both front ends report it as an
/// error (a typo in a matcher must never drop a guard silently).
#[derive(Debug, Clone)]
pub struct UnmatchedHook<'a> {
    /// Where the hook is declared.
    pub place: HookPlace,
    /// How to show the hook (a card's `file.rs:function`, or the path).
    pub hook: &'a str,
    /// The matcher, in its string form.
    pub pattern: String,
    /// The part of the matcher that selects no tool (an alternative of
    /// `a|b`, the inner pattern of `!p`), when the matcher as a whole does;
    /// `None` when the whole matcher selects none.
    pub part: Option<String>,
    /// Where the hook's reference is.
    pub span: SpanInfo,
}

/// Where a hook with a matcher is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookPlace {
    /// `tool_hooks[i]`.
    ToolHook(usize),
    /// `function_tools[tool]`'s own entry hooks, `[hook]`.
    ToolEntry {
        /// The index of the tool in `function_tools`.
        tool: usize,
        /// The index of the hook in that entry's hooks.
        hook: usize,
    },
    /// Lifecycle hook `lifecycle_hooks[i]`.
    Lifecycle(usize),
}

/// A hook with `meta:` parts that only the compiler can decide (see
/// [`AgentSpec::hooks_with_undecided_meta`]): each part, as the error to
/// report if it selects no tool, with the formula each tool of unknown
/// metadata (by position among the function tools) must satisfy for the
/// part to select it.
#[derive(Debug, Clone)]
pub struct UndecidedHook<'a> {
    /// The parts, outermost first.
    pub parts: Vec<(UnmatchedHook<'a>, Vec<(usize, MetaFormula)>)>,
}

impl AgentSpec {
    /// The hooks whose matcher, or a part of it, selects none of the tools
    /// it could apply to: an agent-level or lifecycle hook checked against
    /// the agent's statically known tools, an entry hook against its own
    /// tool. Every part counts: each alternative of `a|b` (`any`, `all`)
    /// and the pattern under `!p`, so that a typo in one of them cannot
    /// drop the guard from a tool (`shel|add_one`) or widen it (`!shel`).
    ///
    /// The MCP tools of a server the agent's lock pins
    /// ([`AgentSpec::locked_mcp_tools`]) count as static tools, with their
    /// annotations as metadata. An agent with unlocked MCP servers also has
    /// tools that are only known once it connects: a part that selects none
    /// of the static tools is accepted when it names such a server (`server__tool`, `server__*`, a
    /// regex that holds `server__`), is `source:mcp`, or is a negation
    /// (`McpAgent` warns at connect time about a hook that selects no tool).
    pub fn hooks_selecting_no_tool(&self) -> Vec<UnmatchedHook<'_>> {
        let mut out = Vec::new();
        self.each_matcher(|place, m, hook, span, tools, servers, runtime| {
            // Only a lifecycle hook sees the final answer (`step:final`).
            let steps = matches!(place, HookPlace::Lifecycle(_));
            if let Some((part, _)) = part_verdicts(m, tools, servers, runtime, steps)
                .into_iter()
                .find(|(_, v)| matches!(v, Verdict::None))
            {
                out.push(UnmatchedHook {
                    place,
                    hook,
                    pattern: m.to_string(),
                    part: (!std::ptr::eq(part, m)).then(|| part.to_string()),
                    span,
                });
            }
        });
        out
    }

    /// The hooks with a `meta:` part that selects a tool only if a tool
    /// whose metadata the spec does not know declares it (a tool listed in
    /// `#[agent]`): the emitter checks these parts at compile time, against
    /// each such tool's `Tool::META`. A hook with a part that selects no
    /// tool whatever the metadata is in
    /// [`AgentSpec::hooks_selecting_no_tool`] instead.
    pub fn hooks_with_undecided_meta(&self) -> Vec<UndecidedHook<'_>> {
        let mut out = Vec::new();
        self.each_matcher(|place, m, hook, span, tools, servers, runtime| {
            let steps = matches!(place, HookPlace::Lifecycle(_));
            let verdicts = part_verdicts(m, tools, servers, runtime, steps);
            if verdicts.iter().any(|(_, v)| matches!(v, Verdict::None)) {
                return;
            }
            let parts: Vec<(UnmatchedHook<'_>, Vec<(usize, MetaFormula)>)> = verdicts
                .into_iter()
                .filter_map(|(part, v)| match v {
                    Verdict::Undecided(formulas) => Some((
                        UnmatchedHook {
                            place,
                            hook,
                            pattern: m.to_string(),
                            part: (!std::ptr::eq(part, m)).then(|| part.to_string()),
                            span,
                        },
                        formulas,
                    )),
                    _ => None,
                })
                .collect();
            if !parts.is_empty() {
                out.push(UndecidedHook { parts });
            }
        });
        out
    }

    /// Calls `f` with every matcher of the spec: agent-level and lifecycle
    /// hooks against the static tools (with their metadata, when known),
    /// the servers and `runtime_tools`; an entry hook against its tool.
    fn each_matcher<'s>(
        &'s self,
        mut f: impl FnMut(HookPlace, &'s Matcher, &'s str, SpanInfo, &[StaticTool], &[String], bool),
    ) {
        let tools: Vec<StaticTool> = self
            .function_tools
            .iter()
            .map(|t| (t.name.clone(), t.source, t.meta.clone()))
            .chain(
                self.agents
                    .iter()
                    .map(|a| (a.tool_name(), ToolSource::Agent, Some(a.meta.clone()))),
            )
            // After the function tools, whose positions `Undecided` names.
            .chain(self.locked_mcp_tools())
            .collect();
        // A locked server's tools are known: only the others' are left to
        // run time.
        let unlocked = self.unlocked_servers();
        let (servers, runtime) = (unlocked.as_slice(), self.runtime_tools);
        let agent_level = self.tool_hooks.iter().enumerate().map(|(i, h)| {
            let place = HookPlace::ToolHook(i);
            (place, &h.matcher, h.display_name(), h.span)
        });
        let lifecycle = self.lifecycle_hooks.iter().enumerate().map(|(i, h)| {
            let place = HookPlace::Lifecycle(i);
            (place, &h.matcher, h.display_name(), h.span)
        });
        for (place, m, hook, span) in agent_level.chain(lifecycle) {
            f(place, m, hook, span, &tools, servers, runtime);
        }
        for (t, tool) in self.function_tools.iter().enumerate() {
            let own = [tools[t].clone()];
            for (i, h) in tool.hooks.iter().enumerate() {
                let place = HookPlace::ToolEntry { tool: t, hook: i };
                f(
                    place,
                    &h.matcher,
                    h.display_name(),
                    h.span,
                    &own,
                    &[],
                    false,
                );
            }
        }
    }

    /// Every hook whose matcher, or a part of it, selects no tool.
    pub(super) fn check_matchers(&self, out: &mut Vec<SpecError>) {
        for unmatched in self.hooks_selecting_no_tool() {
            out.push(SpecError::new(
                SpecField::Hook(unmatched.place),
                unmatched.message(self),
            ));
        }
    }
}
