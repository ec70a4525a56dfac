//! The tool set: one field per tool (its whole chain), its construction,
//! and `impl ToolSet` with dispatch by name.

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
            .push(bound(span, quote!(#ty: #krate::ToolDecl)));
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
    // The tool's metadata: a function tool's `Tool::META` (which the macro
    // cannot read, so the compiler decides the hooks that depend on it), a
    // child's pairs as listed.
    let meta_expr = match (&tool.meta, tool.source) {
        (Some(meta), ToolSource::Agent) if !meta.is_empty() => {
            let pairs: Vec<(String, String)> = meta
                .iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
            Some(crate::lower::meta_slice(&pairs))
        }
        (Some(meta), _) if meta.is_empty() => None,
        (_, ToolSource::Agent) => None,
        _ => Some(quote!(<<#ty as #krate::ToolDecl>::Tool as #krate::Tool>::META)),
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
                .clone()
                .unwrap_or_else(|| quote!(&[] as &[(&str, &str)]));
            if formulas.iter().all(|f| *f == formulas[0]) {
                // The metadata decides, whatever the source: at compile
                // time, from the tool's `Tool::META`.
                let expr = meta_expr_tokens(krate, &formulas[0]);
                let cond = quote!(#expr.eval(#meta));
                hook_names.push((trace_name(hook).to_owned(), Some(cond.clone())));
                hooks.push((
                    quote!(#krate::When<#krate::__private::Const<{ #cond }>, #hty>),
                    quote!(#krate::When::new(#krate::__private::Const, #hinit)),
                    true,
                ));
            } else {
                // Source and metadata both: the matcher, on each call.
                let m = super::hooks::matcher_expr(krate, &hook.matcher);
                let name = &tool.name;
                let cond = quote! {
                    #m.is_some_and(|m| m.matches(
                        #krate::matcher::MatchTarget::new(#name, source)
                            .with_meta(&#krate::ToolMeta::from_static(#meta)),
                    ))
                };
                hook_names.push((trace_name(hook).to_owned(), Some(cond)));
                hooks.push((
                    quote!(#krate::When<::core::option::Option<#krate::matcher::Matcher>, #hty>),
                    quote!(#krate::When::new(#m, #hinit)),
                    true,
                ));
            }
            continue;
        }
        let selected: Vec<ToolSource> = sources
            .iter()
            .zip(&formulas)
            .filter(|(_, f)| f.as_const() == Some(true))
            .map(|(s, _)| *s)
            .collect();
        if selected.is_empty() {
            continue;
        }
        if selected.len() == sources.len() {
            hook_names.push((trace_name(hook).to_owned(), None));
            hooks.push((quote!(#hty), quote!(#hinit), false));
        } else {
            let m = super::hooks::matcher_expr(krate, &hook.matcher);
            let listed = selected
                .iter()
                .map(|s| super::tokens::source_tokens(krate, *s));
            let cond = quote!([#(#listed),*].contains(&source));
            hook_names.push((trace_name(hook).to_owned(), Some(cond)));
            hooks.push((
                quote!(#krate::When<::core::option::Option<#krate::matcher::Matcher>, #hty>),
                quote!(#krate::When::new(#m, #hinit)),
                true,
            ));
        }
    }
    // The innermost handler is the tool's own chain (its own hooks, approval
    // gate and error mapping), `ToolHandler<T>` for a tool without them.
    let mut chain_ty = quote!(<#ty as #krate::ToolDecl>::Handler);
    let mut chain_init = quote!(#krate::ToolDecl::into_handler(#init));
    // A long chain is cut into segments (see `Boxed`): the tool's own
    // chain, then every `AGENT_SEGMENT` hooks, so no future nests more
    // than a segment and a tool's own (segmented) hooks. A `When` (a hook
    // gated by the tool's source) nests about twice as deep as a plain
    // hook, so it counts twice.
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
    })
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

/// The tool of `t` in field `f` of `receiver` (`self`, or the `this` of
/// `new`), as a reference: `<T as ToolDecl>::tool` of its chain's handler,
/// reached through every layer (`.inner()` already gives a reference).
fn tool_of(krate: &syn::Path, t: &Lowered, receiver: TokenStream, f: &syn::Ident) -> TokenStream {
    let inners = (0..t.depth).map(|_| quote!(.inner()));
    let ty = &t.tool_ty;
    let handler = if t.depth == 0 {
        quote!(&#receiver.#f)
    } else {
        quote!(#receiver.#f #(#inners)*)
    };
    quote!(<#ty as #krate::ToolDecl>::tool(#handler))
}

/// The source of tool `t` in field `f`, as its `Tool::source()` says (a
/// child agent's is always `agent`).
fn tool_source(krate: &syn::Path, t: &Lowered, f: &syn::Ident) -> TokenStream {
    if t.source == ToolSource::Agent {
        return source_tokens(krate, t.source);
    }
    let tool = tool_of(krate, t, quote!(self), f);
    quote!(#krate::Tool::source(#tool))
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
    *chain_ty = quote!(#krate::Boxed<#chain_ty>);
    *chain_init = quote!(#krate::Boxed::new(#chain_init));
}

/// What the tool-set struct is made of.
pub(super) struct ToolSetParts<'a> {
    /// Its name.
    pub(super) ty: &'a syn::Ident,
    /// The agent's dependency type, which `new` takes.
    pub(super) deps_ty: &'a syn::Type,
    /// The statically known tools, each with its chain.
    pub(super) tools: &'a [Lowered],
    /// The agent-level hooks, kept for tools discovered at run time.
    pub(super) agent_hooks: &'a [Hook],
}

pub(super) fn emit_tools(
    krate: &syn::Path,
    spec: &AgentSpec,
    vis: &syn::Visibility,
    parts: &ToolSetParts<'_>,
    checks: &Checks,
) -> syn::Result<TokenStream> {
    let ToolSetParts {
        ty: tools_ty,
        deps_ty,
        tools,
        agent_hooks,
    } = *parts;
    let bounds = checks.where_clause();
    let items = tools.iter().map(|t| &t.items);
    let hook_items = agent_hooks.iter().map(|h| &h.items);
    let doc = format!(
        " The statically dispatched tools of the agent `{}`, each behind its chain of hooks.",
        spec.name
    );
    let fields: Vec<syn::Ident> = (0..tools.len())
        .map(|i| format_ident!("tool_{}", i))
        .collect();
    let chain_tys = tools.iter().map(|t| &t.chain_ty);
    let chain_inits = tools.iter().map(|t| &t.chain_init);
    let definition_exprs = tools.iter().zip(&fields).map(|(t, f)| {
        let tool = tool_of(krate, t, quote!(this), f);
        quote!(#krate::Tool::definition(#tool))
    });
    let n = tools.len();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    // The agent-level hooks once more, for the chains of tools discovered
    // at run time (`Agent::call_dynamic` borrows them).
    let (dynamic_field, dynamic_init) = if agent_hooks.is_empty() || !spec.has_run_time_tools() {
        (quote!(), quote!())
    } else {
        let tys = agent_hooks.iter().map(|h| &h.ty);
        let inits = agent_hooks.iter().map(|h| &h.init);
        (
            quote!(dynamic_hooks: (#(#tys,)*),),
            quote!(dynamic_hooks: (#(#inits,)*),),
        )
    };

    let mut meta_fn = quote!();
    let (index_fn, source_body, view_body, dispatch_fn) = if n == 0 {
        let none = quote!({
            let _ = name;
            ::core::option::Option::None
        });
        (
            quote!(),
            none.clone(),
            none,
            quote! {
                async fn dispatch(
                    &self,
                    _scope: &#krate::CallScope,
                    call: #krate::ToolCall,
                ) -> #krate::Outcome {
                    ::core::result::Result::Err(#krate::ToolError::UnknownTool {
                        name: ::std::string::String::from(&*call.name),
                    })
                }
            },
        )
    } else {
        let ph = PerfectHash::try_build(&names).ok_or_else(|| {
            syn::Error::new(Span::call_site(), "duplicate tool names in one agent")
        })?;
        let dispatch = Dispatch::new(krate, &ph, n);
        let arms: Vec<TokenStream> = dispatch
            .order
            .iter()
            .enumerate()
            .map(|(slot, &i)| {
                let t = &tools[i];
                let f = &fields[i];
                let pattern = dispatch.pattern(slot, &t.name, quote!(&*call.name));
                let name = &t.name;
                let source = tool_source(krate, t, f);
                // The context is built with the tool's metadata in place.
                let context = match &t.meta {
                    Some(m) => quote! {
                        scope.context_with_meta(
                            ::std::borrow::Cow::Borrowed(#name),
                            #source,
                            ::core::option::Option::None,
                            call.id,
                            #krate::ToolMeta::from_static(#m),
                        )
                    },
                    None => quote! {
                        scope.context(
                            ::std::borrow::Cow::Borrowed(#name),
                            #source,
                            ::core::option::Option::None,
                            call.id,
                        )
                    },
                };
                quote! {
                    #pattern => {
                        let mut cx = #context;
                        #krate::catch_panics(&self.#f, &mut cx, call.arguments).await
                    }
                }
            })
            .collect();
        let call_scrutinee = dispatch.scrutinee(quote!(call.name));
        let source_body = dispatch.by_name(tools, |i| {
            let source = tool_source(krate, &tools[i], &fields[i]);
            quote!(::core::option::Option::Some(#source))
        });
        // What the loop's approval gate knows of each tool: its chain's
        // (the tool's type, through every layer).
        // An entry's own `available` / `instruction` join the tool's.
        let view_body = dispatch.by_name(tools, |i| {
            let f = &fields[i];
            match &tools[i].rules {
                None => quote!(#krate::Handler::tool_view(&self.#f)),
                Some(rules) => quote!(
                    #krate::Handler::tool_view(&self.#f).map(|view| view.with_rules(#rules))
                ),
            }
        });
        // What lifecycle hooks' `meta:` matchers read; only for a set with
        // a tool that may declare metadata.
        if tools.iter().any(|t| t.meta.is_some()) {
            let body = dispatch.by_name(tools, |i| match &tools[i].meta {
                Some(m) => quote!(::core::option::Option::Some(#krate::ToolMeta::from_static(#m))),
                None => quote!(::core::option::Option::None),
            });
            meta_fn = quote! {
                fn meta(&self, name: &str) -> #krate::ToolMeta {
                    let meta: ::core::option::Option<#krate::ToolMeta> = #body;
                    meta.unwrap_or_default()
                }
            };
        }
        (
            dispatch.index_fn,
            source_body,
            view_body,
            quote! {
                async fn dispatch(
                    &self,
                    scope: &#krate::CallScope,
                    call: #krate::ToolCall,
                ) -> #krate::Outcome {
                    match #call_scrutinee {
                        #(#arms)*
                        _ => ::core::result::Result::Err(
                            #krate::ToolError::UnknownTool {
                                name: ::std::string::String::from(&*call.name),
                            },
                        ),
                    }
                }
            },
        )
    };

    Ok(quote! {
        #(#hook_items)*
        #(#items)*

        #[doc = #doc]
        // Each field's type is a whole chain: nested by design.
        #[allow(clippy::type_complexity)]
        #vis struct #tools_ty #bounds {
            #(#fields: #chain_tys,)*
            #dynamic_field
            definitions: ::std::sync::Arc<[#krate::ToolDefinition]>,
        }

        impl #tools_ty #bounds {
            /// Builds every tool and its chain from the agent's dependencies;
            /// `config` is the agent's, whose options govern its calls of
            /// child agents.
            #[allow(unused_variables)]
            #vis fn new(deps: &#deps_ty, config: &#krate::agent::AgentConfig) -> Self {
                let mut this = Self {
                    #(#fields: #chain_inits,)*
                    #dynamic_init
                    definitions: ::std::sync::Arc::new([]),
                };
                this.definitions = ::std::sync::Arc::from(::std::vec![#(#definition_exprs),*]);
                this
            }

            #index_fn
        }

        impl ::core::fmt::Debug for #tools_ty #bounds {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(::core::stringify!(#tools_ty))
                    .field("tools", &{
                        let names: &[&str] = &[#(#names),*];
                        names
                    })
                    .finish_non_exhaustive()
            }
        }

        impl #krate::ToolSet for #tools_ty #bounds {
            fn definitions(&self) -> ::std::vec::Vec<#krate::ToolDefinition> {
                self.definitions.to_vec()
            }

            fn shared_definitions(&self) -> ::std::sync::Arc<[#krate::ToolDefinition]> {
                ::std::sync::Arc::clone(&self.definitions)
            }

            fn source(&self, name: &str) -> ::core::option::Option<#krate::ToolSource> #source_body

            fn tool_view(
                &self,
                name: &str,
            ) -> ::core::option::Option<#krate::ToolView> #view_body

            #meta_fn

            #dispatch_fn
        }
    })
}

/// Up to this many tools, a tool set dispatches with a plain `match` on the
/// name (what a hand-written function does; the compiler switches on the
/// length, then compares bytes); above it, through the perfect hash.
pub(super) const MATCH_MAX: usize = 8;

/// How a generated tool set finds a tool by name.
pub(super) struct Dispatch {
    /// Whether names go through the perfect hash (else a `match` on the name).
    pub(super) hashed: bool,
    /// The declared position of the tool in each slot.
    pub(super) order: Vec<usize>,
    /// The perfect hash's tables and `index` function (empty for a `match`).
    pub(super) index_fn: TokenStream,
}

impl Dispatch {
    fn new(krate: &syn::Path, ph: &PerfectHash, n: usize) -> Self {
        if n <= MATCH_MAX {
            return Self {
                hashed: false,
                order: (0..n).collect(),
                index_fn: TokenStream::new(),
            };
        }
        let key = Literal::u64_suffixed(ph.key);
        let pilots = ph.pilots.iter().map(|p| Literal::u64_suffixed(*p));
        let buckets = Literal::usize_unsuffixed(ph.pilots.len());
        let n_lit = Literal::usize_unsuffixed(n);
        let index_fn = quote! {
            const KEY: u64 = #key;
            const PILOTS: [u64; #buckets] = [#(#pilots),*];

            /// The one slot the tool named `name` can be in (any name lands
            /// on some slot: the caller compares it with that slot's name).
            #[inline]
            fn index(name: &str) -> usize {
                #krate::__private::dispatch::index(Self::KEY, &Self::PILOTS, #n_lit, name.as_bytes())
            }
        };
        Self {
            hashed: true,
            order: ph.map.clone(),
            index_fn,
        }
    }

    /// A body that finds the tool named `name` and gives `value(its
    /// declared position)`, or `None` for another name.
    fn by_name(&self, tools: &[Lowered], value: impl Fn(usize) -> TokenStream) -> TokenStream {
        let arms = self.order.iter().enumerate().map(|(slot, &i)| {
            let pattern = self.pattern(slot, &tools[i].name, quote!(name));
            let value = value(i);
            quote!(#pattern => #value,)
        });
        let scrutinee = if self.hashed {
            quote!(Self::index(name))
        } else {
            quote!(name)
        };
        quote!({
            match #scrutinee {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        })
    }

    /// What a `match` on the name looks at.
    fn scrutinee(&self, name: TokenStream) -> TokenStream {
        if self.hashed {
            quote!(Self::index(&#name))
        } else {
            quote!(&*#name)
        }
    }

    /// The pattern of the arm for the tool `tool` in `slot`: the name itself,
    /// or the slot guarded by a comparison with the name (one comparison
    /// with a literal, which the compiler inlines).
    fn pattern(&self, slot: usize, tool: &str, name: TokenStream) -> TokenStream {
        if self.hashed {
            let slot = Literal::usize_unsuffixed(slot);
            quote!(#slot if #name == #tool)
        } else {
            quote!(#tool)
        }
    }
}
