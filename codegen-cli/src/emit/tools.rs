//! One tool of an agent lowered into its chain: the hooks that match it
//! around its own handler.

use super::*;

/// One statically known tool with its resolved chain.
pub(super) struct Lowered {
    pub(super) name: String,
    /// The tool's type (a `ToolDecl`).
    pub(super) tool_ty: TokenStream,
    pub(super) source: ToolSource,
    pub(super) chain_ty: TokenStream,
    pub(super) chain_init: TokenStream,
    /// `.inner()` calls from the chain to the tool's own handler.
    pub(super) depth: usize,
    /// The hooks of the chain, outermost first, as traces name them, each
    /// with the condition (a `bool` expression over the tool's `source`)
    /// under which it applies, when that depends on the tool's source or
    /// metadata (`None`: always).
    pub(super) hook_names: Vec<(String, Option<TokenStream>)>,
    /// The tool's metadata as a `&'static [(&str, &str)]` expression
    /// (its `Tool::META`, or a child's declared pairs); `None`: none.
    pub(super) meta: Option<TokenStream>,
    /// The slots of its tool-level hooks (see `lower_hook`).
    pub(super) items: TokenStream,
    /// What the policy reads from each of its entry's hooks' types, in the
    /// entry's order.
    pub(super) entry_facts: Vec<HookFacts>,
    /// The agent's `StepRules` for the tool (its entry's `available` /
    /// `instruction`), if it declares any.
    pub(super) rules: Option<TokenStream>,
}

/// The type of a tool and the expression that builds it, when the emitter
/// makes them itself (a child agent's `AgentTool<Child>`) rather than read
/// them from the spec's text.
pub(super) struct TypedTool {
    pub(super) ty: syn::Type,
    pub(super) init: TokenStream,
}

/// Where a tool sits: its agent's type and its position among the
/// agent's tools (which name the slots of its tool-level hooks), and the
/// agent's dependency type (which builds it and its hooks).
pub(super) struct ToolAt<'a> {
    pub(super) agent_ty: &'a syn::Ident,
    pub(super) index: usize,
    pub(super) deps_ty: &'a syn::Type,
}

/// Lowers one tool entry into its chain: the agent-level hooks that match
/// it (outermost first), then its tool-level hooks, around its own chain.
pub(super) fn lower_tool(
    krate: &syn::Path,
    spec: &AgentSpec,
    agent_hooks: &[Hook],
    tool: &ToolRef,
    at: ToolAt<'_>,
    typed: Option<TypedTool>,
    checks: &mut Checks,
) -> syn::Result<Lowered> {
    let deps_ty = at.deps_ty;
    let span = span_of(&tool.span);
    let (ty, typed_init) = match typed {
        Some(TypedTool { ty, init }) => (ty, Some(init)),
        None => (ref_type(&tool.ty, &tool.tokens, "tool", &tool.span)?, None),
    };
    // A child agent is checked through its slot (`AgentSlot`), not here.
    if tool.source != ToolSource::Agent {
        checks
            .tools
            .push(bound(span, quote!(#ty: #krate::declare::ToolDecl)));
    }
    let init = match (typed_init, &tool.init) {
        (Some(init), _) => init,
        (None, Some(init)) => {
            let e = parse_expr(init, "tool", span)?;
            quote!(#e)
        }
        (None, None) => {
            quote_spanned!(span=> <#ty as #krate::FromDeps<#deps_ty>>::from_deps(deps))
        }
    };
    // A tool's source is what its `Tool::source()` says (a hand-written
    // tool may say `runtime`), known only when it runs: a hook whose
    // matcher's answer for this name depends on the source is in the chain
    // behind `When`, which asks the matcher on each call. A child agent is
    // always `agent`.
    let all_links = spec.links(&tool.hooks);
    // A tool-level hook is lowered (and gets its slot) even when its
    // matcher keeps it out of the chain, so that it is checked.
    let own: Vec<Hook> = tool
        .hooks
        .iter()
        .enumerate()
        .map(|(j, hook)| {
            let prefix = format!("__Hookwire{}Tool{}Hook{}", at.agent_ty, at.index, j);
            lower_hook(krate, hook, Some(deps_ty), &prefix, None)
        })
        .collect::<syn::Result<_>>()?;
    let items: TokenStream = own.iter().map(|h| h.items.clone()).collect();
    let entry_facts = own.iter().map(|h| h.facts.clone()).collect();
    let meta_expr = meta_of(krate, tool, &ty);
    // The tool's arguments, which its typed hooks must take.
    let args_ty = if tool.source == ToolSource::Agent {
        quote!(<#ty as #krate::Tool>::Args)
    } else {
        quote!(#krate::declare::ArgsOf<#ty>)
    };
    let mut hook_names = Vec::new();
    let mut hooks = Vec::new();
    for link in all_links {
        // An agent-level hook is lowered once for the agent; a tool-level
        // one above.
        let (hook, lowered) = match link {
            ChainHook::Agent(i) => (&spec.tool_hooks[i], &agent_hooks[i]),
            ChainHook::Tool(i) => (&tool.hooks[i], &own[i]),
        };
        if let Some(link) = chain_link(krate, tool, hook, lowered, meta_expr.as_ref()) {
            checks.typed_on(krate, lowered, &args_ty);
            hook_names.push((trace_name(hook).to_owned(), link.cond));
            hooks.push((link.ty, link.init, link.gated));
        }
    }
    // The innermost handler is the tool's own chain (its own hooks, approval
    // gate and error mapping), `ToolHandler<T>` for a tool without them.
    let (chain_ty, chain_init, layers) = nest(
        krate,
        quote!(<#ty as #krate::declare::ToolDecl>::Handler),
        quote!(#krate::declare::ToolDecl::into_handler(#init)),
        &hooks,
    );
    let rules = super::step_rules(krate, &tool.available, &tool.instruction)?;
    Ok(Lowered {
        rules,
        name: tool.name.clone(),
        tool_ty: quote!(#ty),
        source: tool.source,
        chain_ty,
        chain_init,
        depth: layers,
        hook_names,
        meta: meta_expr,
        items,
        entry_facts,
    })
}

/// The tool's metadata: a function tool's `Tool::META` (which the macro
/// cannot read, so the compiler decides the hooks that depend on it), a
/// child's pairs as listed.
fn meta_of(krate: &syn::Path, tool: &ToolRef, ty: &syn::Type) -> Option<TokenStream> {
    match (&tool.meta, tool.source) {
        (Some(meta), ToolSource::Agent) if !meta.is_empty() => {
            let pairs: Vec<(String, String)> = meta
                .iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
            Some(crate::lower::meta_slice(&pairs))
        }
        (Some(meta), _) if meta.is_empty() => None,
        (_, ToolSource::Agent) => None,
        _ => Some(quote!(<<#ty as #krate::declare::ToolDecl>::Tool as #krate::Tool>::META)),
    }
}

/// One hook in a tool's chain.
struct Link {
    /// Its type in the chain.
    ty: TokenStream,
    /// The expression that builds it.
    init: TokenStream,
    /// Whether it sits behind `When` (which nests about twice as deep).
    gated: bool,
    /// The condition, over the tool's `source`, under which it applies;
    /// `None`: always.
    cond: Option<TokenStream>,
}

/// The link of `hook` (lowered as `lowered`) in the chain of `tool`, whose
/// metadata is `meta_expr`: plain, behind `When` (its matcher decides by
/// the tool's source or metadata), or `None` when it never applies.
fn chain_link(
    krate: &syn::Path,
    tool: &ToolRef,
    hook: &HookRef,
    lowered: &Hook,
    meta_expr: Option<&TokenStream>,
) -> Option<Link> {
    let sources: Vec<ToolSource> = if tool.source == ToolSource::Agent {
        vec![ToolSource::Agent]
    } else {
        ToolSource::ALL.to_vec()
    };
    // What the matcher says for each source: decided, or (a `meta:`
    // part, metadata unknown here) a formula over the metadata.
    let known = tool.meta.clone().unwrap_or_default();
    let formulas: Vec<MetaFormula> = sources
        .iter()
        .map(|s| {
            let target = crate::spec::MatchTarget::new(&tool.name, *s);
            match &tool.meta {
                Some(_) => MetaFormula::Const(hook.matcher.matches(target.with_meta(&known))),
                None => hook.matcher.meta_formula(target),
            }
        })
        .collect();
    let (hty, hinit) = (&lowered.ty, &lowered.init);
    if formulas.iter().any(|f| f.as_const().is_none()) {
        let meta = meta_expr
            .cloned()
            .unwrap_or_else(|| quote!(&[] as &[(&str, &str)]));
        if formulas.iter().all(|f| *f == formulas[0]) {
            // The metadata decides, whatever the source: at compile
            // time, from the tool's `Tool::META`.
            let expr = meta_expr_tokens(krate, &formulas[0]);
            let cond = quote!(#expr.eval(#meta));
            return Some(Link {
                ty: quote!(#krate::When<#krate::__private::Const<{ #cond }>, #hty>),
                init: quote!(#krate::When::new(#krate::__private::Const, #hinit)),
                gated: true,
                cond: Some(cond),
            });
        }
        // Source and metadata both: the matcher, on each call.
        let m = super::hooks::matcher_expr(krate, &hook.matcher);
        let name = &tool.name;
        let cond = quote! {
            #m.is_some_and(|m| m.matches(
                #krate::matcher::MatchTarget::new(#name, source)
                    .with_meta(&#krate::matcher::ToolMeta::from_static(#meta)),
            ))
        };
        return Some(Link {
            ty: quote!(#krate::When<::core::option::Option<#krate::matcher::Matcher>, #hty>),
            init: quote!(#krate::When::new(#m, #hinit)),
            gated: true,
            cond: Some(cond),
        });
    }
    let selected: Vec<ToolSource> = sources
        .iter()
        .zip(&formulas)
        .filter(|(_, f)| f.as_const() == Some(true))
        .map(|(s, _)| *s)
        .collect();
    if selected.is_empty() {
        return None;
    }
    if selected.len() == sources.len() {
        return Some(Link {
            ty: quote!(#hty),
            init: quote!(#hinit),
            gated: false,
            cond: None,
        });
    }
    let m = super::hooks::matcher_expr(krate, &hook.matcher);
    let listed = selected
        .iter()
        .map(|s| super::tokens::source_tokens(krate, *s));
    let cond = quote!([#(#listed),*].contains(&source));
    Some(Link {
        ty: quote!(#krate::When<::core::option::Option<#krate::matcher::Matcher>, #hty>),
        init: quote!(#krate::When::new(#m, #hinit)),
        gated: true,
        cond: Some(cond),
    })
}

/// Nests `hooks` (outermost first) around the tool's own chain
/// (`chain_ty`, built by `chain_init`): the chain's type, the expression
/// that builds it, and its layers (the `.inner()` calls to the tool's own
/// handler).
///
/// A long chain is cut into segments (see `Boxed`): the tool's own chain,
/// then every `AGENT_SEGMENT` hooks, so no future nests more than a segment
/// and a tool's own (segmented) hooks. A `When` (a hook gated by the tool's
/// source) nests about twice as deep as a plain hook, so it counts twice.
fn nest(
    krate: &syn::Path,
    mut chain_ty: TokenStream,
    mut chain_init: TokenStream,
    hooks: &[(TokenStream, TokenStream, bool)],
) -> (TokenStream, TokenStream, usize) {
    let weight = |(_, _, gated): &(TokenStream, TokenStream, bool)| if *gated { 2 } else { 1 };
    let long = hooks.iter().map(weight).sum::<usize>() > AGENT_SEGMENT;
    let mut layers = 0;
    if long {
        boxed(krate, &mut chain_ty, &mut chain_init);
        layers += 1;
    }
    let mut segment = 0;
    for hook in hooks.iter().rev() {
        if long && segment + weight(hook) > AGENT_SEGMENT {
            boxed(krate, &mut chain_ty, &mut chain_init);
            layers += 1;
            segment = 0;
        }
        segment += weight(hook);
        let (hty, hinit, _) = hook;
        chain_ty = quote!(#krate::Hooked<#hty, #chain_ty>);
        chain_init = quote!(#krate::Hooked::new(#hinit, #chain_init));
        layers += 1;
    }
    (chain_ty, chain_init, layers)
}

/// A metadata formula as a `MetaExpr` constant, which the compiler
/// evaluates against a tool's `Tool::META`.
pub(super) fn meta_expr_tokens(krate: &syn::Path, f: &MetaFormula) -> TokenStream {
    let e = quote!(#krate::__private::MetaExpr);
    match f {
        MetaFormula::Const(b) => quote!(#e::Const(#b)),
        MetaFormula::Has(key) => quote!(#e::Has(#key)),
        MetaFormula::Is(key, value) => quote!(#e::Is(#key, #value)),
        MetaFormula::Not(inner) => {
            let inner = meta_expr_tokens(krate, inner);
            quote!(#e::Not(&#inner))
        }
        MetaFormula::All(fs) | MetaFormula::Any(fs) => {
            let fs = fs.iter().map(|f| meta_expr_tokens(krate, f));
            if matches!(f, MetaFormula::All(_)) {
                quote!(#e::All(&[#(#fs),*]))
            } else {
                quote!(#e::Any(&[#(#fs),*]))
            }
        }
        // `MetaFormula` may grow; a formula this emitter does not know
        // selects nothing.
        _ => quote!(#e::Const(false)),
    }
}

/// The most agent-level hooks a chain nests without a [`boxed`] layer; a
/// tool's own chain nests at most [`OWN_SEGMENT`] more, and the two stay
/// under the depth rustc's default recursion limit compiles (about 20
/// `async` hooks).
pub(crate) const AGENT_SEGMENT: usize = 12;
/// The most layers of a tool's own chain without a [`boxed`] layer.
pub(crate) const OWN_SEGMENT: usize = 8;

/// Wraps the chain built so far in `Boxed`: its future behind one
/// allocation per call, so that the layers outside do not nest it.
pub(crate) fn boxed(krate: &syn::Path, chain_ty: &mut TokenStream, chain_init: &mut TokenStream) {
    *chain_ty = quote!(#krate::hooks::Boxed<#chain_ty>);
    *chain_init = quote!(#krate::hooks::Boxed::new(#chain_init));
}
