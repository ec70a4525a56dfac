//! The JSON document of a [`Policy`]: views in the document's key order
//! (serde writes a struct's fields in declared order).

use serde::Serialize;

use super::{Approval, CoverageRule, Policy, PolicyHook, PolicyTool, Selected};

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    agent: &'a str,
    tools: Vec<ToolView<'a>>,
    coverage: Vec<RuleView<'a>>,
}

#[derive(Serialize)]
struct ToolView<'a> {
    name: &'a str,
    kind: &'static str,
    server: Option<&'a str>,
    hooks: Vec<HookView<'a>>,
    approval: ApprovalView<'a>,
    lifecycle: Vec<HookView<'a>>,
}

#[derive(Serialize)]
struct HookView<'a> {
    name: &'a str,
    phase: &'static str,
    level: &'static str,
    matcher: &'a str,
    selected: &'static str,
    on_failure: &'static str,
    timeout_ms: Option<u64>,
    rewrites: bool,
}

#[derive(Serialize)]
struct ApprovalView<'a> {
    rule: &'static str,
    predicate: Option<&'a str>,
}

#[derive(Serialize)]
struct RuleView<'a> {
    rule: &'static str,
    #[serde(rename = "match")]
    matcher: &'a str,
}

fn hook(h: &PolicyHook) -> HookView<'_> {
    HookView {
        name: &h.name,
        phase: h.phase.as_str(),
        level: h.level.as_str(),
        matcher: &h.matcher,
        selected: h.selected.as_str(),
        on_failure: h.on_failure.map_or("default", |p| p.as_str()),
        timeout_ms: h.timeout_ms,
        rewrites: h.rewrites,
    }
}

fn tool(t: &PolicyTool) -> ToolView<'_> {
    let approval = match &t.approval {
        Approval::None => ApprovalView {
            rule: "none",
            predicate: None,
        },
        Approval::Always => ApprovalView {
            rule: "always",
            predicate: None,
        },
        Approval::When(p) => ApprovalView {
            rule: "when",
            predicate: Some(p),
        },
    };
    ToolView {
        name: &t.name,
        kind: t.kind.as_str(),
        server: t.server.as_deref(),
        hooks: t.chain().map(hook).collect(),
        approval,
        lifecycle: t
            .lifecycle
            .iter()
            .filter(|h| h.selected != Selected::No)
            .map(hook)
            .collect(),
    }
}

fn rule(r: &CoverageRule) -> RuleView<'_> {
    RuleView {
        rule: r.kind.as_str(),
        matcher: &r.matcher,
    }
}

/// The document, without its final line break.
pub(super) fn document(policy: &Policy) -> String {
    let doc = Document {
        version: super::POLICY_VERSION,
        agent: &policy.agent,
        tools: policy.tools.iter().map(tool).collect(),
        coverage: policy.coverage.iter().map(rule).collect(),
    };
    // Plain structs of strings, numbers and options: serializing them
    // cannot fail.
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
