//! Whether each part of a matcher selects a tool: one of the static
//! tools, an MCP tool of a declared server or a tool registered at run
//! time, or the final answer.

use crate::spec::{
    MAX_MATCHER_DEPTH, MatchTarget, Matcher, MetaFormula, SERVER_SEPARATOR, StepKind, ToolMeta,
    ToolSource,
};

/// A static tool as the checks see it: its name, its source, and its
/// metadata when known.
pub type StaticTool = (String, ToolSource, Option<ToolMeta>);

/// Whether a part of a matcher selects a tool.
pub(super) enum Verdict {
    /// It does, or may at run time.
    Selects,
    /// It selects none.
    None,
    /// Only if one of these tools (by position among the static tools)
    /// has metadata that satisfies its formula.
    Undecided(Vec<(usize, MetaFormula)>),
}

/// Every part of `m`, outermost first, with whether it selects one of
/// `tools`, may select a tool of `servers` discovered at run time or (with
/// `runtime`) a tool registered at run time, or (with `steps`) the final
/// answer.
pub(super) fn part_verdicts<'m>(
    m: &'m Matcher,
    tools: &[StaticTool],
    servers: &[String],
    runtime: bool,
    steps: bool,
) -> Vec<(&'m Matcher, Verdict)> {
    if m.depth() > MAX_MATCHER_DEPTH {
        // Only a matcher built by hand gets here (parsing refuses it); it
        // is not walked.
        return Vec::new();
    }
    let final_answer = MatchTarget::step(StepKind::Final);
    let verdict = |part: &Matcher| {
        if part.is_always()
            || (steps && part.matches(final_answer))
            || may_select_at_run_time(part, servers)
            || (runtime && may_select_runtime_tool(part))
        {
            return Verdict::Selects;
        }
        let mut undecided = Vec::new();
        for (i, (name, source, meta)) in tools.iter().enumerate() {
            let target = MatchTarget::new(name, *source);
            match meta {
                Some(meta) if part.matches(target.with_meta(meta)) => return Verdict::Selects,
                Some(_) => {}
                None => match part.meta_formula(target) {
                    MetaFormula::Const(true) => return Verdict::Selects,
                    MetaFormula::Const(false) => {}
                    formula => undecided.push((i, formula)),
                },
            }
        }
        if undecided.is_empty() {
            Verdict::None
        } else {
            Verdict::Undecided(undecided)
        }
    };
    m.parts().into_iter().map(|p| (p, verdict(p))).collect()
}

/// The metadata keys an MCP tool may carry: its annotations
/// (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`),
/// each `"true"` or `"false"`.
pub const MCP_META_KEYS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

/// Whether `m` may select an MCP tool of one of `servers` (known only at
/// run time): it must name a declared server or source.
pub(crate) fn may_select_at_run_time(m: &Matcher, servers: &[String]) -> bool {
    if servers.is_empty() {
        return false;
    }
    let qualified = |text: &str| {
        servers
            .iter()
            .any(|s| text.starts_with(&format!("{s}{}", SERVER_SEPARATOR)))
    };
    match m {
        Matcher::Always
        | Matcher::Not(_)
        | Matcher::Source(ToolSource::Mcp)
        | Matcher::Step(StepKind::Tool) => true,
        Matcher::Exact(_) | Matcher::Glob(_) => qualified(&m.to_string()),
        Matcher::Regex(re) => servers
            .iter()
            .any(|s| re.as_str().contains(&format!("{s}{}", SERVER_SEPARATOR))),
        // An MCP tool's annotations are its metadata.
        Matcher::Meta { key, .. } => MCP_META_KEYS.contains(&key.as_str()),
        Matcher::Any(ms) => ms.iter().any(|m| may_select_at_run_time(m, servers)),
        Matcher::All(ms) => ms.iter().all(|m| may_select_at_run_time(m, servers)),
        _ => false,
    }
}

/// Whether `m` may select a tool registered at run time (source
/// `runtime`, any name): every part but another source (or a step kind
/// other than a tool call) may.
pub(crate) fn may_select_runtime_tool(m: &Matcher) -> bool {
    match m {
        Matcher::Source(source) => *source == ToolSource::Runtime,
        Matcher::Step(step) => *step == StepKind::Tool,
        Matcher::Any(ms) => ms.iter().any(may_select_runtime_tool),
        Matcher::All(ms) => ms.iter().all(may_select_runtime_tool),
        _ => true,
    }
}
