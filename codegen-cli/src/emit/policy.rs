//! The agent's policy as a constant (`GeneratedAgent::POLICY`, and the
//! agent's `policy()`), built from the spec's [`policy_entries`]
//! (AgentSpec::policy_entries) here, so the running agent needs no spec:
//! a `meta:` part on a function tool's `Tool::META` and the tool's own
//! chain (its `ToolDecl::OWN_HOOKS` and `APPROVAL`) are left to the
//! compiler. Each coverage rule is a constant that fails to compile, on
//! the rule, when the policy breaks it.

use super::*;
use crate::spec::{
    Approval, CoverageKind, HookLevel, PolicyHook, PolicyTool, Selected, Selection, ToolKind,
};

/// The path of the policy types in generated code.
fn review(krate: &syn::Path) -> TokenStream {
    quote!(#krate::__private::review)
}

fn cow_str(s: &str) -> TokenStream {
    let s = str_lit(s);
    quote!(::std::borrow::Cow::Borrowed(#s))
}

fn selected_tokens(
    krate: &syn::Path,
    fixed: Selected,
    selection: Option<&Selection>,
    meta: Option<&TokenStream>,
) -> TokenStream {
    let r = review(krate);
    let fixed = match fixed {
        Selected::Yes => quote!(#r::Selected::Yes),
        Selected::No => quote!(#r::Selected::No),
        Selected::PerCall => quote!(#r::Selected::PerCall),
    };
    match selection {
        Some(Selection::Formula(f)) if f.as_const().is_none() => {
            let expr = meta_expr_tokens(krate, f);
            let meta = meta
                .cloned()
                .unwrap_or_else(|| quote!(&[] as &[(&str, &str)]));
            quote!(#r::Selected::when(#expr.eval(#meta)))
        }
        _ => fixed,
    }
}

/// A hook of the policy; `selection`: whether its matcher selects the
/// tool, when the compiler decides it; `facts`: what the compiler reads
/// from the hook's type (`None`: as `h` says).
pub(crate) fn hook_tokens(
    krate: &syn::Path,
    h: &PolicyHook,
    selection: Option<&Selection>,
    meta: Option<&TokenStream>,
    facts: Option<&HookFacts>,
) -> TokenStream {
    let r = review(krate);
    let name = cow_str(&h.name);
    let phase = match (facts, h.phase) {
        (Some(facts), _) => facts.phase.clone(),
        (None, HookKind::Pre) => quote!(#r::HookKind::Pre),
        (None, HookKind::Post) => quote!(#r::HookKind::Post),
        (None, _) => quote!(#r::HookKind::Around),
    };
    let level = match h.level {
        HookLevel::Agent => quote!(#r::HookLevel::Agent),
        HookLevel::Entry => quote!(#r::HookLevel::Entry),
        HookLevel::Own => quote!(#r::HookLevel::Own),
        _ => quote!(#r::HookLevel::Lifecycle),
    };
    let matcher = cow_str(&h.matcher);
    let on_failure = match h.on_failure {
        Some(FailurePolicy::FailOpen) => {
            quote!(::core::option::Option::Some(#r::FailurePolicy::FailOpen))
        }
        Some(_) => quote!(::core::option::Option::Some(#r::FailurePolicy::FailClosed)),
        None => quote!(::core::option::Option::None),
    };
    let timeout = match h.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(#ms)),
        None => quote!(::core::option::Option::None),
    };
    let selected = selected_tokens(krate, h.selected, selection, meta);
    let rewrites = match facts {
        Some(facts) => facts.rewrites.clone(),
        None => {
            let b = h.rewrites;
            quote!(#b)
        }
    };
    quote! {
        #r::PolicyHook {
            name: #name,
            phase: #phase,
            level: #level,
            matcher: #matcher,
            on_failure: #on_failure,
            timeout_ms: #timeout,
            selected: #selected,
            rewrites: #rewrites,
        }
    }
}

/// An approval rule of the policy.
pub(crate) fn approval_tokens(krate: &syn::Path, a: &Approval) -> TokenStream {
    let r = review(krate);
    match a {
        Approval::Always => quote!(#r::Approval::Always),
        Approval::When(p) => {
            let p = cow_str(p);
            quote!(#r::Approval::When(#p))
        }
        _ => quote!(#r::Approval::None),
    }
}

fn tool_tokens(
    krate: &syn::Path,
    entry: &crate::spec::PolicyEntry<'_>,
    lowered: Option<&Lowered>,
    agent_hooks: &[Hook],
) -> TokenStream {
    let r = review(krate);
    let PolicyTool {
        name,
        kind,
        server,
        hooks,
        lifecycle,
        ..
    } = &entry.tool;
    let meta = lowered.and_then(|l| l.meta.as_ref());
    // The agent's hooks, then the entry's (`policy_entries`' order).
    let facts = agent_hooks
        .iter()
        .map(|h| Some(&h.facts))
        .chain(
            lowered
                .into_iter()
                .flat_map(|l| l.entry_facts.iter().map(Some)),
        )
        .chain(std::iter::repeat(None));
    let hooks = hooks
        .iter()
        .zip(&entry.hooks)
        .zip(facts)
        .map(|((h, s), facts)| hook_tokens(krate, h, Some(s), meta, facts));
    let lifecycle = lifecycle
        .iter()
        .zip(&entry.lifecycle)
        .map(|(h, s)| hook_tokens(krate, h, Some(s), meta, None));
    let kind = match kind {
        ToolKind::Function => quote!(#r::ToolKind::Function),
        ToolKind::Agent => quote!(#r::ToolKind::Agent),
        ToolKind::Mcp => quote!(#r::ToolKind::Mcp),
        _ => quote!(#r::ToolKind::Runtime),
    };
    let server = match server {
        Some(s) => {
            let s = cow_str(s);
            quote!(::core::option::Option::Some(#s))
        }
        None => quote!(::core::option::Option::None),
    };
    let (own, approval) = match (entry.function, lowered) {
        (Some(_), Some(l)) => {
            let ty = &l.tool_ty;
            (
                quote!(<#ty as #krate::declare::ToolDecl>::OWN_HOOKS),
                quote!(<#ty as #krate::declare::ToolDecl>::APPROVAL),
            )
        }
        _ => (quote!(&[]), quote!(#r::Approval::None)),
    };
    let name = cow_str(name);
    quote! {
        #r::PolicyTool {
            name: #name,
            kind: #kind,
            server: #server,
            hooks: ::std::borrow::Cow::Borrowed(&[#(#hooks),*]),
            own_hooks: ::std::borrow::Cow::Borrowed(#own),
            approval: #approval,
            lifecycle: ::std::borrow::Cow::Borrowed(&[#(#lifecycle),*]),
        }
    }
}

/// The policy constant's expression.
fn policy_expr(
    krate: &syn::Path,
    spec: &AgentSpec,
    lowered: &[Lowered],
    agent_hooks: &[Hook],
) -> TokenStream {
    let r = review(krate);
    let entries = spec.policy_entries();
    let find = |e: &crate::spec::PolicyEntry<'_>| {
        e.function
            .and_then(|f| lowered.iter().find(|l| l.name == f.name))
    };
    let tools = entries
        .iter()
        .map(|e| tool_tokens(krate, e, find(e), agent_hooks));
    let rules = spec.coverage.iter().enumerate().map(|(i, rule)| {
        let kind = match rule.kind {
            CoverageKind::GuardsFailClosed => quote!(#r::CoverageKind::GuardsFailClosed),
            CoverageKind::RewritesOrdered => quote!(#r::CoverageKind::RewritesOrdered),
            _ => quote!(#r::CoverageKind::ApprovalOrGuard),
        };
        let matcher = cow_str(&rule.matcher.to_string());
        let selects = entries.iter().map(|e| {
            let meta = find(e).and_then(|l| l.meta.as_ref());
            let known = e.function.and_then(|f| f.meta.clone()).unwrap_or_default();
            let s = &e.coverage[i];
            selected_tokens(krate, s.selected(&known), Some(s), meta)
        });
        quote! {
            #r::CoverageRule {
                kind: #kind,
                matcher: #matcher,
                selects: ::std::borrow::Cow::Borrowed(&[#(#selects),*]),
            }
        }
    });
    let agent = cow_str(&spec.name);
    quote! {
        #r::Policy {
            agent: #agent,
            tools: ::std::borrow::Cow::Borrowed(&[#(#tools),*]),
            coverage: ::std::borrow::Cow::Borrowed(&[#(#rules),*]),
        }
    }
}

/// `const POLICY` of `GeneratedAgent`, and the agent's `policy()`
/// (inherent, so no trait needs importing).
pub(super) fn policy_items(
    krate: &syn::Path,
    spec: &AgentSpec,
    lowered: &[Lowered],
    agent_hooks: &[Hook],
) -> (TokenStream, TokenStream) {
    let expr = policy_expr(krate, spec, lowered, agent_hooks);
    let constant = quote! {
        const POLICY: #krate::Policy = #expr;
    };
    let method = quote! {
        /// The agent's policy: every tool with the hooks its calls run
        /// through, in order, their failure policies and timeouts, and its
        /// approval rule (`to_json()` gives the reviewable document).
        #[allow(dead_code)]
        pub fn policy() -> #krate::Policy {
            <Self as #krate::declare::GeneratedAgent>::POLICY
        }
    };
    (constant, method)
}

/// One constant per coverage rule, spanned on the rule: it fails to
/// compile with the rule's message when the policy breaks it.
pub(super) fn coverage_checks(
    krate: &syn::Path,
    spec: &AgentSpec,
    agent_ty: &syn::Ident,
) -> TokenStream {
    let r = review(krate);
    let checks = spec.coverage.iter().enumerate().map(|(i, rule)| {
        // Every token on the rule (`bound`): a constant whose tokens mix
        // spans is reported on the whole attribute.
        bound(
            span_of(&rule.span),
            quote! {
                const _: () = #r::check_coverage(
                    <#agent_ty as #krate::declare::GeneratedAgent>::POLICY,
                    #i,
                );
            },
        )
    });
    quote!(#(#checks)*)
}
