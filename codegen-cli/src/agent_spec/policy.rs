//! The agent's policy ([`Policy`](crate::spec::Policy)) as its spec gives
//! it, and its coverage rules: one build for `cardgen explain --json` and
//! the check, and the emitter's constant (which leaves each `meta:` part
//! it cannot decide, and the tool's own chain, to the compiler).

use std::borrow::Cow;

use crate::spec::{
    AgentSpec, Approval, CoverageKind, CoverageRule, HookLevel, HookRef, LifecycleRef, MatchTarget,
    Matcher, MetaFormula, Policy, PolicyHook, PolicyTool, SERVER_SEPARATOR, Selected, SpanInfo,
    ToolKind, ToolMeta, ToolRef, ToolSource,
};

/// A coverage rule as declared (`coverage = [approval_or_guard(match =
/// "meta:destructive")]`, a `coverage:` entry of `hookwire.yaml`).
#[derive(Debug, Clone)]
pub struct CoverageSpec {
    /// What it requires.
    pub kind: CoverageKind,
    /// The tools it applies to (`*` by default).
    pub matcher: Matcher,
    /// Where the rule is: a compile error about it points there.
    pub span: SpanInfo,
}

impl CoverageSpec {
    /// A rule for every tool.
    pub fn new(kind: CoverageKind) -> Self {
        Self {
            kind,
            matcher: Matcher::Always,
            span: None,
        }
    }
}

/// Whether a matcher selects a tool, as far as the spec knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Decided, or a formula over the tool's `Tool::META` (a tool listed in
    /// `#[agent]`, whose metadata the macro cannot see).
    Formula(MetaFormula),
    /// On each call (an MCP or run-time entry).
    PerCall,
}

impl Selection {
    /// The answer when the tool's metadata is `meta` (no metadata: a
    /// formula's `meta:` parts select nothing).
    pub fn selected(&self, meta: &ToolMeta) -> Selected {
        match self {
            Self::Formula(f) => Selected::when(f.eval(meta)),
            Self::PerCall => Selected::PerCall,
        }
    }
}

/// One tool of the policy, with what the emitter needs besides it.
#[derive(Debug, Clone)]
pub struct PolicyEntry<'a> {
    /// The entry, every selection decided with the metadata the spec
    /// knows; no own hooks and no approval (a function tool's are its
    /// `ToolDecl`'s).
    pub tool: PolicyTool,
    /// The function tool it is.
    pub function: Option<&'a ToolRef>,
    /// For each of `tool.hooks`, whether its matcher selects the tool.
    pub hooks: Vec<Selection>,
    /// For each of `tool.lifecycle`, likewise.
    pub lifecycle: Vec<Selection>,
    /// For each coverage rule, likewise.
    pub coverage: Vec<Selection>,
}

/// The name a policy gives a hook: its function or type name, as the trace
/// names it (`hooks.rs:audit` and `crate::hooks::audit` are `audit`).
pub(crate) fn hook_name(display: &str) -> &str {
    display.rsplit(':').next().unwrap_or(display)
}

/// The policy's view of an agent-level or entry hook.
pub fn policy_hook(h: &HookRef, level: HookLevel) -> PolicyHook {
    PolicyHook {
        name: Cow::Owned(hook_name(h.display_name()).to_owned()),
        phase: h.phase.unwrap_or(h.kind),
        level,
        matcher: Cow::Owned(h.matcher.to_string()),
        on_failure: Some(h.policy),
        timeout_ms: h.timeout_ms,
        selected: Selected::Yes,
        rewrites: h.rewrites.unwrap_or(true),
    }
}

fn lifecycle_hook(h: &LifecycleRef) -> PolicyHook {
    PolicyHook {
        name: Cow::Owned(hook_name(h.display_name()).to_owned()),
        phase: crate::spec::HookKind::Around,
        level: HookLevel::Lifecycle,
        matcher: Cow::Owned(h.matcher.to_string()),
        on_failure: h.policy,
        timeout_ms: h.timeout_ms,
        selected: Selected::Yes,
        // Its `pre_tool_use` may rewrite them.
        rewrites: true,
    }
}

/// A tool of the policy: its name, kind and source, the metadata the spec
/// knows (`None`: read at compile time), and an MCP entry's server.
struct Target<'a> {
    name: String,
    kind: ToolKind,
    source: ToolSource,
    meta: Option<ToolMeta>,
    server: Option<String>,
    function: Option<&'a ToolRef>,
    /// Its own entry hooks (a function tool's).
    entry: &'a [HookRef],
}

impl Target<'_> {
    /// Whether `m` selects this tool.
    fn selection(&self, m: &Matcher) -> Selection {
        if m.is_always() {
            return Selection::Formula(MetaFormula::Const(true));
        }
        let target = MatchTarget::new(&self.name, self.source);
        let never = Selection::Formula(MetaFormula::Const(false));
        match self.kind {
            ToolKind::Mcp => {
                let server = self.server.clone().unwrap_or_default();
                if !super::check::may_select_at_run_time(m, &[server]) {
                    return never;
                }
                match m.meta_formula(target) {
                    // A named MCP tool (its metadata comes from the server).
                    MetaFormula::Const(b) if !self.name.contains(['*', '?', '[']) => {
                        Selection::Formula(MetaFormula::Const(b))
                    }
                    _ => Selection::PerCall,
                }
            }
            ToolKind::Runtime if !super::check::may_select_runtime_tool(m) => never,
            ToolKind::Runtime => Selection::PerCall,
            _ => match &self.meta {
                Some(meta) => {
                    Selection::Formula(MetaFormula::Const(m.matches(target.with_meta(meta))))
                }
                None => Selection::Formula(m.meta_formula(target)),
            },
        }
    }
}

impl AgentSpec {
    fn policy_targets(&self) -> Vec<Target<'_>> {
        let functions = self.function_tools.iter().map(|t| Target {
            name: t.name.clone(),
            kind: ToolKind::Function,
            source: t.source,
            meta: t.meta.clone(),
            server: None,
            function: Some(t),
            entry: &t.hooks,
        });
        let agents = self.agents.iter().map(|a| Target {
            name: a.tool_name(),
            kind: ToolKind::Agent,
            source: ToolSource::Agent,
            meta: Some(a.meta.clone()),
            server: None,
            function: None,
            entry: &[],
        });
        let mcp = |server: &str, glob: &str| Target {
            name: format!("{server}{SERVER_SEPARATOR}{glob}"),
            kind: ToolKind::Mcp,
            source: ToolSource::Mcp,
            meta: None,
            server: Some(server.to_owned()),
            function: None,
            entry: &[],
        };
        let mut out: Vec<Target<'_>> = functions.chain(agents).collect();
        for server in &self.servers {
            let filters: Vec<&str> = self
                .mcp_tools
                .iter()
                .filter(|f| &f.server == server)
                .flat_map(|f| f.globs.iter().map(String::as_str))
                .collect();
            if filters.is_empty() {
                out.push(mcp(server, "*"));
            }
            out.extend(filters.into_iter().map(|g| mcp(server, g)));
        }
        if self.runtime_tools {
            out.push(Target {
                name: "*".to_owned(),
                kind: ToolKind::Runtime,
                source: ToolSource::Runtime,
                meta: None,
                server: None,
                function: None,
                entry: &[],
            });
        }
        out
    }

    /// Every tool of the policy, in the order the model sees them
    /// (function tools, child agents), then the MCP entries (one per
    /// filter glob, `server__*` for a server without one) and `*` for
    /// tools registered at run time; each with every hook that may run
    /// around it and whether its matcher selects it.
    pub fn policy_entries(&self) -> Vec<PolicyEntry<'_>> {
        self.policy_targets()
            .into_iter()
            .map(|t| {
                let known = t.meta.clone().unwrap_or_default();
                let agent = self.tool_hooks.iter().map(|h| (h, HookLevel::Agent));
                let entry = t.entry.iter().map(|h| (h, HookLevel::Entry));
                let (mut hooks, mut sel) = (Vec::new(), Vec::new());
                for (h, level) in agent.chain(entry) {
                    let s = t.selection(&h.matcher);
                    let mut ph = policy_hook(h, level);
                    ph.selected = s.selected(&known);
                    hooks.push(ph);
                    sel.push(s);
                }
                let (mut lifecycle, mut lsel) = (Vec::new(), Vec::new());
                for h in &self.lifecycle_hooks {
                    let s = t.selection(&h.matcher);
                    let mut ph = lifecycle_hook(h);
                    ph.selected = s.selected(&known);
                    lifecycle.push(ph);
                    lsel.push(s);
                }
                PolicyEntry {
                    tool: PolicyTool {
                        name: Cow::Owned(t.name.clone()),
                        kind: t.kind,
                        server: t.server.clone().map(Cow::Owned),
                        hooks: Cow::Owned(hooks),
                        own_hooks: Cow::Borrowed(&[]),
                        approval: Approval::None,
                        lifecycle: Cow::Owned(lifecycle),
                    },
                    function: t.function,
                    hooks: sel,
                    lifecycle: lsel,
                    coverage: self
                        .coverage
                        .iter()
                        .map(|r| t.selection(&r.matcher))
                        .collect(),
                }
            })
            .collect()
    }

    /// The agent's policy as its spec gives it:
    /// [`policy_entries`](Self::policy_entries), `meta:` parts decided on the metadata the
    /// spec knows, with the coverage rules. A function tool's own hooks
    /// and approval rule are its `ToolDecl`'s: `own` gives them for the
    /// tool, when the caller knows them (cards read its `#[tool]`).
    pub fn policy(&self, own: impl Fn(&ToolRef) -> (Vec<PolicyHook>, Approval)) -> Policy {
        let entries = self.policy_entries();
        let coverage = self
            .coverage
            .iter()
            .enumerate()
            .map(|(i, r)| CoverageRule {
                kind: r.kind,
                matcher: Cow::Owned(r.matcher.to_string()),
                selects: Cow::Owned(
                    entries
                        .iter()
                        .map(|e| {
                            let meta = e.function.and_then(|f| f.meta.clone());
                            e.coverage[i].selected(&meta.unwrap_or_default())
                        })
                        .collect(),
                ),
            })
            .collect();
        let tools = entries
            .into_iter()
            .map(|e| {
                let mut tool = e.tool;
                if let Some(f) = e.function {
                    let (hooks, approval) = own(f);
                    tool.own_hooks = Cow::Owned(hooks);
                    tool.approval = approval;
                }
                tool
            })
            .collect();
        Policy {
            agent: Cow::Owned(self.name.clone()),
            tools: Cow::Owned(tools),
            coverage: Cow::Owned(coverage),
        }
    }

    /// Every coverage rule the policy breaks, by rule: the position of the
    /// rule in `coverage` and the message (which tool, which rule, how to
    /// fix it), from the one check both front ends use
    /// ([`coverage_problem`](crate::spec::coverage_problem)).
    pub fn coverage_errors(policy: &Policy) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        for rule in 0..policy.coverage.len() {
            let mut from = 0;
            while let Some((tool, problem)) = crate::spec::coverage_problem(policy, rule, from) {
                let message = crate::spec::coverage_message(policy, rule, tool, problem);
                out.push((rule, message.as_str().to_owned()));
                from = tool + 1;
            }
        }
        out
    }
}
