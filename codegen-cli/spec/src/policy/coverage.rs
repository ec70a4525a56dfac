//! Coverage rules: what an agent declares its policy must hold
//! (`#[agent(coverage = [..])]`, a card folder's `coverage:`), checked in
//! one place: [`coverage_problem`], a `const fn` that generated code
//! evaluates at compile time (an error at the rule) and `cardgen` at
//! generation time (an error at the rule's line).

use std::fmt;
use std::str::FromStr;

use super::{HookLevel, Policy, PolicyHook, PolicyTool, Selected, Text, items, text};
use crate::{FailurePolicy, did_you_mean};

/// What a coverage rule requires of each tool its matcher selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CoverageKind {
    /// `approval_or_guard`: the tool has an approval gate
    /// (`needs_approval`) or a guard (a pre or around hook in its chain).
    ApprovalOrGuard,
    /// `guards_fail_closed`: every guard in the tool's chain fails closed
    /// and has a timeout.
    GuardsFailClosed,
    /// `rewrites_ordered`: the hooks that may rewrite the tool's arguments
    /// come from one list (the agent's `tool_hooks`, the agent's entry
    /// for the tool, or the tool's own), whose order is the order they
    /// run in: two from different lists are ordered by where they were
    /// declared, which nobody wrote down. (Lifecycle hooks are not in the
    /// tool's chain: the loop runs them before it.)
    RewritesOrdered,
}

impl CoverageKind {
    /// Every rule with its spelling.
    pub const ALL: [(&'static str, CoverageKind); 3] = [
        ("approval_or_guard", Self::ApprovalOrGuard),
        ("guards_fail_closed", Self::GuardsFailClosed),
        ("rewrites_ordered", Self::RewritesOrdered),
    ];

    /// How the rule is spelled.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ApprovalOrGuard => "approval_or_guard",
            Self::GuardsFailClosed => "guards_fail_closed",
            Self::RewritesOrdered => "rewrites_ordered",
        }
    }
}

impl fmt::Display for CoverageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A coverage rule name that is none of [`CoverageKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown coverage rule `{name}`{}; the rules are `approval_or_guard`, `guards_fail_closed` and `rewrites_ordered`",
    .suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default())]
pub struct UnknownCoverageRule {
    /// The name as written.
    pub name: String,
    /// The nearest rule name, if one is close.
    pub suggestion: Option<&'static str>,
}

impl FromStr for CoverageKind {
    type Err = UnknownCoverageRule;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, k)| *k)
            .ok_or_else(|| UnknownCoverageRule {
                name: s.to_owned(),
                suggestion: did_you_mean(s, Self::ALL.iter().map(|(n, _)| *n)),
            })
    }
}

/// One coverage rule of a policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoverageRule {
    /// What it requires.
    pub kind: CoverageKind,
    /// Which tools it applies to, as written (`*` for every tool).
    pub matcher: Text,
    /// For each tool of the policy, in its order, whether the matcher
    /// selects it; a tool past the end counts as selected.
    pub selects: super::List<Selected>,
}

impl CoverageRule {
    /// A rule whose matcher selects the tools as `selects` says.
    pub const fn new(
        kind: CoverageKind,
        matcher: &'static str,
        selects: &'static [Selected],
    ) -> Self {
        Self {
            kind,
            matcher: std::borrow::Cow::Borrowed(matcher),
            selects: std::borrow::Cow::Borrowed(selects),
        }
    }
}

/// How a tool breaks a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CoverageProblem {
    /// `approval_or_guard`: no approval gate and no guard.
    Uncovered,
    /// `guards_fail_closed`: the guard at this position of the tool's
    /// chain (its hooks, then its own hooks) fails open.
    FailsOpen(usize),
    /// `guards_fail_closed`: the guard at this position has no timeout.
    NoTimeout(usize),
    /// `rewrites_ordered`: the hooks at these positions of the tool's
    /// chain both may rewrite its arguments, and come from different
    /// lists.
    Unordered(usize, usize),
}

/// The hook at `i` of the chain `hooks` then `own`.
const fn chain_hook(tool: &PolicyTool, i: usize) -> &PolicyHook {
    let hooks = items(&tool.hooks);
    if i < hooks.len() {
        &hooks[i]
    } else {
        &items(&tool.own_hooks)[i - hooks.len()]
    }
}

/// Whether the hook runs on the tool's calls for the rule: decided at
/// build time, or chosen per call by the very matcher of the rule.
const fn counts(h: &PolicyHook, rule: &CoverageRule) -> bool {
    match h.selected {
        Selected::Yes => true,
        Selected::No => false,
        Selected::PerCall => crate::str_eq(text(&h.matcher), text(&rule.matcher)),
    }
}

/// The first two hooks of the tool's chain that may rewrite its arguments
/// and come from different lists (`rewrites_ordered`).
const fn unordered_rewrites(tool: &PolicyTool, len: usize) -> Option<CoverageProblem> {
    let mut first: Option<usize> = None;
    let mut i = 0;
    while i < len {
        let h = chain_hook(tool, i);
        if h.rewrites && !matches!(h.selected, Selected::No) {
            match first {
                None => first = Some(i),
                Some(f) if !same_level(chain_hook(tool, f).level, h.level) => {
                    return Some(CoverageProblem::Unordered(f, i));
                }
                Some(_) => {}
            }
        }
        i += 1;
    }
    None
}

const fn same_level(a: HookLevel, b: HookLevel) -> bool {
    matches!(
        (a, b),
        (HookLevel::Agent, HookLevel::Agent)
            | (HookLevel::Entry, HookLevel::Entry)
            | (HookLevel::Own, HookLevel::Own)
            | (HookLevel::Lifecycle, HookLevel::Lifecycle)
    )
}

/// What `tool` breaks of `rule`, if anything.
const fn tool_problem(tool: &PolicyTool, rule: &CoverageRule) -> Option<CoverageProblem> {
    let len = items(&tool.hooks).len() + items(&tool.own_hooks).len();
    if let CoverageKind::RewritesOrdered = rule.kind {
        return unordered_rewrites(tool, len);
    }
    let mut i = 0;
    let mut guarded = false;
    while i < len {
        let h = chain_hook(tool, i);
        if h.is_guard() && !matches!(h.selected, Selected::No) {
            if let super::CoverageKind::GuardsFailClosed = rule.kind {
                if !matches!(h.on_failure, Some(FailurePolicy::FailClosed)) {
                    return Some(CoverageProblem::FailsOpen(i));
                }
                if h.timeout_ms.is_none() {
                    return Some(CoverageProblem::NoTimeout(i));
                }
            }
            guarded = guarded || counts(h, rule);
        }
        i += 1;
    }
    match rule.kind {
        CoverageKind::ApprovalOrGuard if !guarded && !tool.approval.is_gated() => {
            Some(CoverageProblem::Uncovered)
        }
        _ => None,
    }
}

/// The first tool, from position `from` of the policy's tools on, that
/// breaks the policy's coverage rule `rule`, and how. A rule applies to
/// the tools its matcher selects, and to those it may select on a call
/// (an MCP or run-time entry).
pub const fn coverage_problem(
    policy: &Policy,
    rule: usize,
    from: usize,
) -> Option<(usize, CoverageProblem)> {
    let rules = items(&policy.coverage);
    if rule >= rules.len() {
        return None;
    }
    let rule = &rules[rule];
    let tools = items(&policy.tools);
    let selects = items(&rule.selects);
    let mut t = from;
    while t < tools.len() {
        let selected = t >= selects.len() || !matches!(selects[t], Selected::No);
        if selected && let Some(problem) = tool_problem(&tools[t], rule) {
            return Some((t, problem));
        }
        t += 1;
    }
    None
}

/// A message built in a `const fn`: at most [`Message::MAX`] bytes.
#[derive(Debug, Clone, Copy)]
pub struct Message {
    bytes: [u8; Message::MAX],
    len: usize,
}

impl Message {
    /// The longest message kept (longer ones are cut).
    pub const MAX: usize = 1024;

    const fn new() -> Self {
        Self {
            bytes: [0; Self::MAX],
            len: 0,
        }
    }

    const fn push(mut self, s: &str) -> Self {
        let s = s.as_bytes();
        let mut i = 0;
        while i < s.len() && self.len < Self::MAX {
            self.bytes[self.len] = s[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The text (cut at a character boundary if it was too long).
    pub const fn as_str(&self) -> &str {
        let (kept, _) = self.bytes.split_at(self.len);
        match std::str::from_utf8(kept) {
            Ok(s) => s,
            Err(e) => match std::str::from_utf8(kept.split_at(e.valid_up_to()).0) {
                Ok(s) => s,
                Err(_) => "",
            },
        }
    }
}

/// What `problem` of the tool at `tool` means for the policy's rule
/// `rule`, with how to fix it: the error both front ends report.
pub const fn coverage_message(
    policy: &Policy,
    rule: usize,
    tool: usize,
    problem: CoverageProblem,
) -> Message {
    let rules = items(&policy.coverage);
    let tools = items(&policy.tools);
    if rule >= rules.len() || tool >= tools.len() {
        return Message::new();
    }
    let (r, t) = (&rules[rule], &tools[tool]);
    let m = Message::new()
        .push("coverage rule `")
        .push(r.kind.as_str())
        .push("` (match `")
        .push(text(&r.matcher))
        .push("`) is broken by tool `")
        .push(text(&t.name))
        .push("`: ");
    match problem {
        CoverageProblem::Uncovered => m
            .push("nothing asks for approval or guards it before it runs; give the tool `needs_approval`, or add a pre or around hook whose `match` selects it (`match = \"")
            .push(text(&r.matcher))
            .push("\"`)"),
        CoverageProblem::FailsOpen(h) => guard(m, chain_hook(t, h))
            .push(" fails open, so a failing guard lets the call through; give it `on_failure = \"closed\"`"),
        CoverageProblem::NoTimeout(h) => guard(m, chain_hook(t, h))
            .push(" has no timeout, so a hanging guard holds the call forever; give it a `timeout_ms`"),
        CoverageProblem::Unordered(a, b) => hook_at(hook_at(m.push("hooks "), chain_hook(t, a)).push(" and "), chain_hook(t, b))
            .push(" may both rewrite its arguments, and no one list orders them (they run as the lists nest); declare both in one list, in the order they should run, or make one read the arguments without rewriting them (a pre hook taking `args: &ArgsOf<")
            .push(text(&t.name))
            .push(">`)"),
    }
}

/// Where a hook of the chain is declared.
const fn place(level: HookLevel) -> &'static str {
    match level {
        HookLevel::Agent => "the agent's `tool_hooks`",
        HookLevel::Entry => "the agent's entry for the tool",
        HookLevel::Own => "the tool's own `tool_hooks`",
        HookLevel::Lifecycle => "the agent's lifecycle `hooks`",
    }
}

/// `` `name` (in where)``.
const fn hook_at(m: Message, h: &PolicyHook) -> Message {
    m.push("`")
        .push(text(&h.name))
        .push("` (in ")
        .push(place(h.level))
        .push(")")
}

/// `its guard `name` (where)`.
const fn guard(m: Message, h: &PolicyHook) -> Message {
    hook_at(m.push("its guard "), h)
}

/// Fails compilation with the message of the first tool that breaks the
/// policy's coverage rule `rule`: what generated agents evaluate in a
/// constant, spanned on the rule. It takes the policy by value (a constant
/// cannot drop one).
#[doc(hidden)]
pub const fn check_coverage(policy: Policy, rule: usize) {
    let message = match coverage_problem(&policy, rule, 0) {
        Some((tool, problem)) => Some(coverage_message(&policy, rule, tool, problem)),
        None => None,
    };
    std::mem::forget(policy);
    if let Some(message) = message {
        panic!("{}", message.as_str());
    }
}

/// One entry of the `coverage:` list of a server configuration file
/// (`hookwire.yaml`), as JSON: a rule's name (`guards_fail_closed`, for
/// every tool) or a mapping `{rule: approval_or_guard, match:
/// "meta:destructive"}`. `Err` says what is wrong and what to write.
pub fn parse_coverage_entry(
    entry: &serde_json::Value,
) -> Result<(CoverageKind, crate::Matcher), String> {
    const SHAPE: &str = "write a rule's name (`guards_fail_closed`) or `{rule: approval_or_guard, match: \"meta:destructive\"}`";
    let (rule, matcher) = match entry {
        serde_json::Value::String(rule) => (rule.as_str(), None),
        serde_json::Value::Object(fields) => {
            if let Some(key) = fields
                .keys()
                .find(|k| !matches!(k.as_str(), "rule" | "match"))
            {
                return Err(format!(
                    "unknown key `{key}` in a coverage rule (the keys are `rule` and `match`)"
                ));
            }
            let rule = match fields.get("rule") {
                Some(serde_json::Value::String(rule)) => rule.as_str(),
                _ => return Err(format!("a coverage rule needs a `rule` name: {SHAPE}")),
            };
            match fields.get("match") {
                None => (rule, None),
                Some(serde_json::Value::String(m)) => (rule, Some(m.as_str())),
                Some(_) => {
                    return Err(format!(
                        "the `match` of a coverage rule is a text, as a hook's: {SHAPE}"
                    ));
                }
            }
        }
        _ => return Err(format!("a coverage rule is a name or a mapping: {SHAPE}")),
    };
    let kind: CoverageKind = rule
        .parse()
        .map_err(|e: UnknownCoverageRule| e.to_string())?;
    let matcher = match matcher {
        None => crate::Matcher::Always,
        Some(m) => crate::Matcher::parse(m)
            .map_err(|e| format!("invalid `match` pattern for coverage rule `{kind}`: {e}"))?,
    };
    Ok((kind, matcher))
}
