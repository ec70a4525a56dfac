//! An agent's statically known tools, lowered in order: its function tools,
//! then its child agents (each a tool `agent__<Name>` over the child's
//! slot), with the compile-time checks of the names they are listed under
//! and of the `meta:` parts the spec cannot decide.

use super::*;

/// The agent's tools, lowered, and the items that come with them.
pub(super) struct AgentTools {
    /// Every statically known tool with its chain: function tools in
    /// declared order, then child agents.
    pub(super) lowered: Vec<Lowered>,
    /// The constants that check names and `meta:` parts at compile time.
    pub(super) name_checks: Vec<TokenStream>,
    /// The slot of each child agent.
    pub(super) child_items: Vec<TokenStream>,
}

/// What lowers an agent's tools: the agent and its agent-level hooks.
pub(super) struct ToolLowering<'a> {
    pub(super) krate: &'a syn::Path,
    pub(super) spec: &'a AgentSpec,
    pub(super) agent_ty: &'a syn::Ident,
    pub(super) deps_ty: &'a syn::Type,
    /// The agent-level hooks, lowered once and reused in every chain.
    pub(super) agent_hooks: &'a [Hook],
}

/// A child agent as a tool of its parent, before its chain is lowered.
struct ChildTool {
    /// The child's slot (the marker type and its impls).
    slot_items: TokenStream,
    /// The check that the child is listed under its declared name.
    name_check: TokenStream,
    tool: ToolRef,
    typed: TypedTool,
}

impl ToolLowering<'_> {
    /// Lowers the function tools, then the child agents; an error for a
    /// name given twice, and the first error of a tool's lowering.
    pub(super) fn lower(&self, checks: &mut Checks) -> syn::Result<AgentTools> {
        let spec = self.spec;
        let mut seen = HashSet::new();
        let mut lowered = Vec::new();
        for tool in &spec.function_tools {
            let span = span_of(&tool.span);
            if !seen.insert(tool.name.clone()) {
                return Err(syn::Error::new(
                    span,
                    format!(
                        "duplicate tool name `{}` in agent `{}`",
                        tool.name, spec.name
                    ),
                ));
            }
            lowered.push(self.lower_tool(tool, lowered.len(), None, checks)?);
        }
        let mut name_checks = self.function_name_checks(&lowered);
        name_checks.extend(meta_checks(self.krate, spec, &lowered));
        let mut child_items = Vec::new();
        for (i, child) in spec.agents.iter().enumerate() {
            let ChildTool {
                slot_items,
                name_check,
                tool,
                typed,
            } = self.child_tool(child, i, &mut seen)?;
            child_items.push(slot_items);
            name_checks.push(name_check);
            lowered.push(self.lower_tool(&tool, lowered.len(), Some(typed), checks)?);
        }
        Ok(AgentTools {
            lowered,
            name_checks,
            child_items,
        })
    }

    /// Lowers the tool at position `index` among the agent's tools.
    fn lower_tool(
        &self,
        tool: &ToolRef,
        index: usize,
        typed: Option<TypedTool>,
        checks: &mut Checks,
    ) -> syn::Result<Lowered> {
        let at = ToolAt {
            agent_ty: self.agent_ty,
            index,
            deps_ty: self.deps_ty,
        };
        lower_tool(
            self.krate,
            self.spec,
            self.agent_hooks,
            tool,
            at,
            typed,
            checks,
        )
    }

    /// The name a function tool is listed under must be the one it is
    /// declared with (`#[tool(name = "..")]`): checked at compile time.
    fn function_name_checks(&self, lowered: &[Lowered]) -> Vec<TokenStream> {
        let krate = self.krate;
        self.spec
            .function_tools
            .iter()
            .zip(lowered)
            .filter(|(tool, _)| tool.source != ToolSource::Agent)
            .map(|(tool, lowered)| {
                let ty = &lowered.tool_ty;
                let used = tool.name.as_str();
                let path_text = ty.to_string().replace(' ', "");
                bound(
                    span_of(&tool.span),
                    quote! {
                        const _: () = #krate::__private::function_tool_name(
                            <<#ty as #krate::declare::ToolDecl>::Tool as #krate::Tool>::DECLARED_NAME,
                            #used,
                            #path_text,
                        );
                    },
                )
            })
            .collect()
    }

    /// A child agent is a tool like any other: `agent__<Name>`, an
    /// `AgentTool` that runs a fresh child per call, wrapped in the
    /// agent-level hooks that match it (its source is `agent`). `index` is
    /// its position among the children (which names its slot).
    fn child_tool(
        &self,
        child: &crate::spec::AgentRef,
        index: usize,
        seen: &mut HashSet<String>,
    ) -> syn::Result<ChildTool> {
        let (krate, spec, agent_ty, deps_ty) = (self.krate, self.spec, self.agent_ty, self.deps_ty);
        let span = span_of(&child.span);
        let child_ty = match &child.ty {
            Some(ty) => ty.clone(),
            // Cards: every generated agent type is re-exported by the
            // module file, one level up from the card's own module.
            None => match type_name_for(&child.name) {
                Some(name) => format!("super::{name}"),
                None => {
                    return Err(syn::Error::new(
                        span,
                        format!("agent name `{}` gives no Rust type name", child.name),
                    ));
                }
            },
        };
        // The macro's own path when it names the child's type, else the
        // text (a card's, or the type named after the child).
        let tokens = if child.ty.is_some() {
            &child.tokens
        } else {
            &None
        };
        let ty = ref_type(&child_ty, tokens, "agent", &child.span)?;
        // The child through its slot (see `hookwire::__private::slot`):
        // the slot's `type Agent`, on the child's path, is the one check
        // that it is an agent; the parent's tool is an
        // `AgentTool<Child<Marker>>`, which asks nothing more of the path.
        let slot = quote!(#krate::__private::slot);
        let marker = marker_ident(&format!("__Hookwire{agent_ty}Agent{index}"), &ty);
        let slot_items = slot_items(
            krate,
            &SlotItems {
                marker: &marker,
                vis: None,
                ty: &ty,
                deps_ty: &quote!(#deps_ty),
                span,
                slot: SlotKind::Agent,
                init: None,
            },
        );
        // The tool name the parent uses must be the child's own
        // (`agent__<declared name>`): checked at compile time.
        let used = child.name.as_str();
        let path_text = quote!(#ty).to_string().replace(' ', "");
        let name_check = bound(
            span,
            quote! {
                const _: () = #krate::__private::child_agent_name(
                    <#marker as #slot::AgentSlot>::NAME,
                    #used,
                    #path_text,
                );
            },
        );
        // The child is built from this agent's dependencies, once, and
        // its calls are governed by this agent's (the orchestrator's)
        // options.
        // Typed here, not written out as text for `lower_tool` to parse.
        // (The type carries the child's span, as the agent's other tool
        // types carry theirs; the expression the macro's own.)
        let typed = TypedTool {
            ty: respan_type(
                syn::parse_quote!(#krate::agent::AgentTool<#slot::Child<#marker>>),
                span,
            ),
            init: child_options(
                child,
                bound(
                    Span::call_site(),
                    quote!(#krate::agent::AgentTool::with_configured_model(
                        #slot::Child::<#marker>::new(deps)
                    )
                    .with_orchestrator(config)),
                ),
            )?,
        };
        let tool = crate::spec::ToolRef {
            ty: String::new(),
            init: None,
            name: child.tool_name(),
            source: ToolSource::Agent,
            hooks: Vec::new(),
            span: child.span,
            tokens: None,
            meta: Some(child.meta.clone()),
            available: None,
            instruction: None,
        };
        if !seen.insert(child.tool_name()) {
            return Err(syn::Error::new(
                span,
                format!("duplicate agent `{}` in agent `{}`", child.name, spec.name),
            ));
        }
        Ok(ChildTool {
            slot_items,
            name_check,
            tool,
            typed,
        })
    }
}

/// A child's `output` and `on_error` on its `AgentTool`, each spanned on
/// its path: a function of the wrong signature (the bound of
/// `with_output_fn` / `with_on_error`) or a path that names nothing is one
/// error, there.
fn child_options(child: &crate::spec::AgentRef, mut init: TokenStream) -> syn::Result<TokenStream> {
    let options = [
        (&child.output, "with_output_fn", "output extractor"),
        (&child.on_error, "with_on_error", "on_error mapping"),
    ];
    for (f, method, what) in options {
        let Some(f) = f else { continue };
        let path = fn_path(f, what)?;
        let span = f.span.unwrap_or_else(Span::call_site);
        let method = syn::Ident::new(method, span);
        init = quote::quote_spanned!(span=> #init.#method(#path));
    }
    Ok(init)
}

/// The compile-time checks of the `meta:` parts the spec cannot decide
/// (`AgentSpec::hooks_with_undecided_meta`: tools listed in `#[agent]`,
/// whose metadata is their `Tool::META`): one constant per hook, on its
/// `match` string, that fails with the spec's message for the first part
/// that selects no tool, so one mistake is one error.
fn meta_checks(krate: &syn::Path, spec: &AgentSpec, lowered: &[Lowered]) -> Vec<TokenStream> {
    spec.hooks_with_undecided_meta()
        .into_iter()
        .filter_map(|hook| {
            let place = hook.parts.first()?.0.place;
            let calls = hook.parts.iter().map(|(unmatched, formulas)| {
                let selected = formulas.iter().filter_map(|(i, formula)| {
                    // An entry hook's tools are its own (position 0).
                    let i = match place {
                        crate::spec::HookPlace::ToolEntry { tool, .. } => tool,
                        _ => *i,
                    };
                    let meta = lowered.get(i)?.meta.as_ref()?;
                    let expr = meta_expr_tokens(krate, formula);
                    Some(quote!(#expr.eval(#meta)))
                });
                let message = unmatched.message(spec);
                quote!(#krate::__private::meta_part_selects(&[#(#selected),*], #message);)
            });
            let span = config::field_span(spec, crate::spec::SpecField::Hook(place));
            Some(bound(span, quote!(const _: () = { #(#calls)* };)))
        })
        .collect()
}
