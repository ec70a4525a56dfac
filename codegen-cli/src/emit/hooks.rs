//! Hooks in the generated code: how one hook reference is lowered into a
//! chain, the matchers of agent-level hooks, `hooks_for`, lifecycle hooks
//! and the run-time path for tools found at run time.

use super::*;

/// Lowers one hook reference into a chain: its type there and the
/// expression that builds it, both through the slot `marker`, which the
/// returned items declare (see `hookwire::__private::slot`): the marker's
/// `Slot` impl names the user's type and builds it, and its kind impl
/// (`AroundSlot`, ..), spanned on the user's path, is the one check that
/// the path is a hook of that kind. Nothing else asks anything of the
/// user's type, so a path that is not a hook is one error, there.
///
/// `deps` is the agent's dependency type: the hook is built from the
/// agent's dependencies (`BuildHook`: its `Default`, or its `FromDeps`);
/// without it (a tool's own hooks, built with the tool), from none.
///
/// The marker is `prefix` and the hook type's own name, so that a chain
/// type reads `Slotted<__HookwireCalcHook0_Audit>`, with visibility `vis`:
/// an agent's are private to its module; a tool's own have the tool's (in
/// its anonymous `const` block, so not nameable), since its
/// `ToolDecl::Handler` names them.
pub(crate) fn lower_hook(
    krate: &syn::Path,
    r: &HookRef,
    deps: Option<&syn::Type>,
    prefix: &str,
    vis: Option<&syn::Visibility>,
) -> syn::Result<Hook> {
    let span = span_of(&r.span);
    let base = ref_type(&r.ty, &r.tokens, "hook", &r.span)?;
    let marker = marker_ident(prefix, &base);
    let marker = &marker;
    let slot = quote!(#krate::__private::slot);
    let (deps_ty, deps_arg) = match deps {
        Some(deps) => (quote!(#deps), quote!(deps)),
        None => (quote!(()), quote!(&())),
    };
    let init = r
        .init
        .as_ref()
        .map(|init| parse_expr(init, "hook", span).map(|e| quote!(#e)))
        .transpose()?;
    let items = slot_items(
        krate,
        &SlotItems {
            marker,
            vis,
            ty: &base,
            deps_ty: &deps_ty,
            span,
            slot: SlotKind::Hook(r.kind),
            init,
        },
    );
    let slotted = quote!(#slot::Slotted<#marker>);
    let base_init = quote!(#slot::Slotted::<#marker>::new(#deps_arg));
    let (mut ty, mut init) = match r.kind {
        HookKind::Around => (slotted, base_init),
        HookKind::Pre => (
            quote!(#krate::Pre<#slotted>),
            quote!(#krate::Pre(#base_init)),
        ),
        HookKind::Post => (
            quote!(#krate::Post<#slotted>),
            quote!(#krate::Post(#base_init)),
        ),
    };
    if r.is_guarded() {
        let policy = match r.policy {
            FailurePolicy::FailClosed => quote!(#krate::FailurePolicy::FailClosed),
            FailurePolicy::FailOpen => quote!(#krate::FailurePolicy::FailOpen),
        };
        let timeout = match r.timeout_ms {
            Some(ms) => {
                let ms = Literal::u64_suffixed(ms);
                quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms)))
            }
            None => quote!(::core::option::Option::None),
        };
        init = quote!(#krate::Guarded::new(#init, #policy, #timeout));
        ty = quote!(#krate::Guarded<#ty>);
    }
    // Read from the chain's own type, which asks nothing more of the
    // user's type than the chain does: a path that is not a hook stays one
    // error, at the slot's kind impl.
    let facts = HookFacts {
        rewrites: quote!(<#ty as #krate::Hook>::REWRITES),
        phase: quote!(<#ty as #krate::Hook>::PHASE),
    };
    Ok(Hook {
        ty: syn::parse2(ty)?,
        init,
        items,
        // The slot's type, not the user's path again: a path that is no
        // hook is one error, at its slot.
        user_ty: syn::parse2(quote!(<#marker as #slot::Slot>::Hook))?,
        span,
        facts,
    })
}

/// The matchers an agent's generated code evaluates at run time: those of
/// its agent-level hooks (for tools found at run time, so only with MCP
/// servers) and of its lifecycle hooks, each other than `*`. They are
/// compiled once for the process, in one `static` array behind the agent's
/// private `__hookwire_matchers()`, and every generated function that needs
/// one (`call_dynamic`, `hooks_selecting_none`, `hooks_for`,
/// `lifecycle_hooks`) borrows its slot, so each matcher is one `LazyLock`.
pub(super) struct RuntimeMatchers {
    exprs: Vec<TokenStream>,
    agent_hooks: Vec<Option<usize>>,
    lifecycle_hooks: Vec<Option<usize>>,
}

impl RuntimeMatchers {
    /// The slots of `spec`'s matchers.
    pub(super) fn new(krate: &syn::Path, spec: &AgentSpec) -> Self {
        let mut exprs = Vec::new();
        let mut slot = |m: &crate::spec::Matcher, needed: bool| {
            (needed && !m.is_always()).then(|| {
                exprs.push(matcher_expr(krate, m));
                exprs.len() - 1
            })
        };
        let dynamic = spec.has_run_time_tools();
        let agent_hooks = spec
            .tool_hooks
            .iter()
            .map(|h| slot(&h.matcher, dynamic))
            .collect();
        let lifecycle_hooks = spec
            .lifecycle_hooks
            .iter()
            .map(|h| slot(&h.matcher, true))
            .collect();
        Self {
            exprs,
            agent_hooks,
            lifecycle_hooks,
        }
    }

    /// The private associated function holding the array (nothing when no
    /// matcher is needed at run time).
    pub(super) fn item(&self, krate: &syn::Path) -> TokenStream {
        if self.exprs.is_empty() {
            return quote!();
        }
        let n = proc_macro2::Literal::usize_unsuffixed(self.exprs.len());
        let exprs = &self.exprs;
        let ty = quote!(::std::sync::LazyLock<::core::option::Option<#krate::matcher::Matcher>>);
        quote! {
            /// The matchers of this agent's hooks that are evaluated at run
            /// time, compiled once.
            fn __hookwire_matchers() -> &'static [#ty; #n] {
                static MATCHERS: [#ty; #n] = [#(::std::sync::LazyLock::new(|| #exprs)),*];
                &MATCHERS
            }
        }
    }

    fn access(slot: usize) -> TokenStream {
        let slot = proc_macro2::Literal::usize_unsuffixed(slot);
        quote!(&Self::__hookwire_matchers()[#slot])
    }

    /// `&'static LazyLock<Option<Matcher>>` of agent-level hook `i`, if it
    /// has one at run time.
    pub(super) fn agent_hook(&self, i: usize) -> Option<TokenStream> {
        self.agent_hooks.get(i).copied().flatten().map(Self::access)
    }

    /// The same for lifecycle hook `i`.
    pub(super) fn lifecycle_hook(&self, i: usize) -> Option<TokenStream> {
        self.lifecycle_hooks
            .get(i)
            .copied()
            .flatten()
            .map(Self::access)
    }
}

/// Whether the agent has agent-level hooks and tools found at run time,
/// which those hooks wrap (`call_dynamic`, the trace's dynamic hooks).
pub(super) fn has_dynamic_chain(spec: &AgentSpec) -> bool {
    !spec.tool_hooks.is_empty() && spec.has_run_time_tools()
}

/// `Agent::call_dynamic`: the agent-level hooks, in declared order,
/// around a tool discovered at run time. A hook whose matcher is not `*` is
/// wrapped in `When`, which evaluates the matcher on each call (compiled
/// once, in a `static`).
pub(super) fn emit_call_dynamic(
    krate: &syn::Path,
    spec: &AgentSpec,
    matchers: &RuntimeMatchers,
) -> TokenStream {
    // Only an agent with MCP servers has tools discovered at run time; for
    // one without, the chain is never called, and compiling it would cost
    // the recursion depth of a `When` per matched hook for nothing.
    if !has_dynamic_chain(spec) {
        return quote!();
    }
    let mut layers = Vec::new();
    // The hooks were built with the tool set, from the agent's dependencies
    // (its `dynamic_hooks`); each call borrows them.
    for i in 0..spec.tool_hooks.len() {
        let index = syn::Index::from(i);
        let init = quote!(&self.tools.dynamic_hooks.#index);
        match matchers.agent_hook(i) {
            None => layers.push(init.clone()),
            Some(m) => layers.push(quote!(#krate::When::new(#m, #init))),
        }
    }
    // Cut into segments like the static chains (see `Boxed`); a `When`
    // nests deeper than a plain hook, so the segments are shorter.
    let mut chain = quote!(inner);
    for (k, layer) in layers.iter().rev().enumerate() {
        if k > 0 && k.is_multiple_of(super::OWN_SEGMENT) {
            chain = quote!(#krate::hooks::Boxed::new(#chain));
        }
        chain = quote!(#krate::Hooked::new(#layer, #chain));
    }
    quote! {
        async fn call_dynamic<__C: #krate::Handler>(
            &self,
            cx: &mut #krate::ToolContext,
            args: #krate::ToolArgs,
            inner: &__C,
        ) -> #krate::Outcome {
            let chain = #chain;
            #krate::hooks::catch_panics(&chain, cx, args).await
        }
    }
}

/// `Agent::hooks_selecting_none`: for an agent with tools discovered
/// at run time, which agent-level hooks with a matcher select none of the
/// tools it has once they are known (each matcher compiled once, in a
/// `static`). Nothing for an agent without servers: there the same check is
/// a compile error.
pub(super) fn emit_hooks_selecting_none(
    krate: &syn::Path,
    spec: &AgentSpec,
    matchers: &RuntimeMatchers,
) -> TokenStream {
    if !spec.has_run_time_tools() || spec.tool_hooks.iter().all(|h| h.matcher.is_always()) {
        return quote!();
    }
    let mut checks = Vec::new();
    for (i, r) in spec.tool_hooks.iter().enumerate() {
        let Some(m) = matchers.agent_hook(i) else {
            continue;
        };
        let name = str_lit(r.display_name());
        let pattern = str_lit(&r.matcher.to_string());
        checks.push(quote! {
            if !#krate::__private::selects_any(#m, tools) {
                none.push((#name, ::std::string::String::from(#pattern)));
            }
        });
    }
    quote! {
        fn hooks_selecting_none(
            &self,
            tools: &[#krate::matcher::MatchTarget<'_>],
        ) -> ::std::vec::Vec<(&'static str, ::std::string::String)> {
            let mut none = ::std::vec::Vec::new();
            #(#checks)*
            none
        }
    }
}

/// How the trace names a hook: its function or type name, the same for a
/// card (`hooks.rs:audit` is `audit`) and `#[agent]`, and the name its
/// denials carry.
pub(super) fn trace_name(hook: &HookRef) -> &str {
    crate::agent_spec::hook_name(hook.display_name())
}

/// `Agent::hooks_for`: the hooks of a tool's chain, outermost first,
/// for the trace: a static tool's resolved chain, and for a tool
/// discovered at run time the agent-level hooks whose matcher selects it.
pub(super) fn emit_hooks_for(
    krate: &syn::Path,
    spec: &AgentSpec,
    tools: &[Lowered],
) -> TokenStream {
    if spec.tool_hooks.is_empty() && tools.iter().all(|t| t.hook_names.is_empty()) {
        return quote!();
    }
    let arms = tools.iter().filter(|t| !t.hook_names.is_empty()).map(|t| {
        let name = &t.name;
        if t.hook_names.iter().all(|(_, only)| only.is_none()) {
            let hooks = t.hook_names.iter().map(|(h, _)| h);
            return quote!(#name => ::std::vec![#(#hooks),*],);
        }
        // Some apply only to some sources (the tool's, from the caller) or
        // by the tool's metadata.
        let pushes = t.hook_names.iter().map(|(h, only)| match only {
            None => quote!(hooks.push(#h);),
            Some(cond) => quote!(if #cond { hooks.push(#h); }),
        });
        quote!(#name => {
            let mut hooks = ::std::vec::Vec::new();
            #(#pushes)*
            hooks
        })
    });
    // For a tool found at run time: each agent-level hook, with the
    // matcher it needs (compiled once, see `RuntimeMatchers`) if it has one.
    let arms: Vec<TokenStream> = arms.collect();
    let (fallback, for_call) = if !has_dynamic_chain(spec) {
        let unused = if arms.is_empty() {
            quote!((tool, source))
        } else {
            quote!(source)
        };
        let fallback = quote!({
            let _ = #unused;
            ::std::vec::Vec::new()
        });
        (fallback, quote!())
    } else {
        // A tool found at run time: matched on its metadata too, which
        // only the loop knows (`hooks_for_call`).
        let fallback = quote!(Self::__hookwire_dynamic_hooks(
            &#krate::matcher::MatchTarget::new(tool, source),
        ));
        let for_call = quote! {
            fn hooks_for_call(
                &self,
                target: &#krate::matcher::MatchTarget<'_>,
            ) -> ::std::vec::Vec<&'static str> {
                if #krate::ToolSet::contains(&self.tools, target.tool) {
                    self.hooks_for(target.tool, target.source)
                } else {
                    Self::__hookwire_dynamic_hooks(target)
                }
            }
        };
        (fallback, for_call)
    };
    // Without a static tool's arm, the fallback alone (a `match` of one
    // `_` arm is a lint in the user's crate).
    let body = if arms.is_empty() {
        fallback
    } else {
        quote! {
            match tool {
                #(#arms)*
                _ => #fallback
            }
        }
    };
    quote! {
        fn hooks_for(
            &self,
            tool: &str,
            source: #krate::ToolSource,
        ) -> ::std::vec::Vec<&'static str> {
            #body
        }

        #for_call
    }
}

/// The agent-level hooks whose matcher selects a tool found at run time
/// (each matcher compiled once, see `RuntimeMatchers`): an inherent
/// function of the agent, which `hooks_for` and `hooks_for_call` share.
pub(super) fn emit_dynamic_hooks(
    krate: &syn::Path,
    spec: &AgentSpec,
    matchers: &RuntimeMatchers,
) -> TokenStream {
    if !has_dynamic_chain(spec) {
        return quote!();
    }
    let entries = spec.tool_hooks.iter().enumerate().map(|(i, r)| {
        let name = str_lit(trace_name(r));
        match matchers.agent_hook(i) {
            None => quote!((#name, ::core::option::Option::None)),
            Some(m) => quote!((#name, ::core::option::Option::Some(#m))),
        }
    });
    quote! {
        /// The agent-level hooks a call of a tool found at run time runs
        /// through, outermost first.
        fn __hookwire_dynamic_hooks(
            target: &#krate::matcher::MatchTarget<'_>,
        ) -> ::std::vec::Vec<&'static str> {
            let hooks: &[(
                &'static str,
                ::core::option::Option<
                    &::std::sync::LazyLock<::core::option::Option<#krate::matcher::Matcher>>,
                >,
            )] = &[#(#entries),*];
            hooks
                .iter()
                .filter(|(_, matcher)| {
                    matcher.is_none_or(|m| #krate::__private::selects_any(m, ::core::slice::from_ref(target)))
                })
                .map(|(name, _)| *name)
                .collect()
        }
    }
}

/// `Agent::lifecycle_hooks`: the declared lifecycle hooks as a tuple, in
/// declared order; one with a failure policy or a timeout is wrapped in the
/// `LifecycleGuard`, and one with a matcher other than `*` in
/// `ForTools`, which limits its tool events to the tools it selects.
pub(super) fn emit_lifecycle(
    krate: &syn::Path,
    spec: &AgentSpec,
    agent_ty: &syn::Ident,
    matchers: &RuntimeMatchers,
) -> syn::Result<(TokenStream, TokenStream)> {
    if spec.lifecycle_hooks.is_empty() {
        return Ok((quote!(), quote!()));
    }
    let slot = quote!(#krate::__private::slot);
    let mut hooks = Vec::new();
    let mut items = Vec::new();
    for (i, r) in spec.lifecycle_hooks.iter().enumerate() {
        let span = span_of(&r.span);
        let ty = ref_type(&r.ty, &r.tokens, "lifecycle hook", &r.span)?;
        // One slot per lifecycle hook, as for tool hooks (`lower_hook`):
        // its `LifecycleSlot` impl, spanned on the path, is the one check.
        let marker = marker_ident(&format!("__Hookwire{agent_ty}Lifecycle{i}"), &ty);
        items.push(slot_items(
            krate,
            &SlotItems {
                marker: &marker,
                vis: None,
                ty: &ty,
                deps_ty: &quote!(()),
                span,
                slot: SlotKind::Lifecycle,
                init: None,
            },
        ));
        let mut init = quote!(#slot::Slotted::<#marker>::new(&()));
        if r.is_guarded() {
            init = lifecycle_guarded(krate, r, init);
        }
        // The matcher is compiled once (see `RuntimeMatchers`), not each
        // time the runner asks for the hooks.
        // A matcher with a `step:` part decides `stop` and `step_end` too.
        let steps = r
            .matcher
            .selects_steps()
            .then(|| quote!(.with_step_events()));
        match matchers.lifecycle_hook(i) {
            None => hooks.push(init),
            Some(m) => hooks.push(quote! {
                #krate::agent::lifecycle::ForTools::new(
                    |target: &#krate::matcher::MatchTarget<'_>| {
                        #krate::__private::selects(#m, target)
                    },
                    #init,
                )
                #steps
            }),
        }
    }
    let hooks = nested_tuple(hooks);
    Ok((
        quote! {
            fn lifecycle_hooks(&self) -> impl #krate::agent::lifecycle::LifecycleHooks {
                #hooks
            }
        },
        quote!(#(#items)*),
    ))
}

/// The largest tuple of lifecycle hooks the runtime implements
/// `LifecycleHooks` for (`runtime/src/agent/lifecycle/forward.rs`).
const MAX_HOOK_TUPLE: usize = 12;

/// `hooks` as one tuple, in order: tuples of at most [`MAX_HOOK_TUPLE`]
/// nested in one (a tuple of hooks is a hook, and runs its own in order),
/// so that any number of hooks compiles.
fn nested_tuple(hooks: Vec<TokenStream>) -> TokenStream {
    if hooks.len() <= MAX_HOOK_TUPLE {
        return quote!((#(#hooks,)*));
    }
    let groups: Vec<TokenStream> = hooks
        .chunks(MAX_HOOK_TUPLE)
        .map(|group| quote!((#(#group,)*)))
        .collect();
    nested_tuple(groups)
}

/// `init` in the `LifecycleGuard`, with the hook's policy and timeout.
fn lifecycle_guarded(
    krate: &syn::Path,
    r: &crate::spec::LifecycleRef,
    init: TokenStream,
) -> TokenStream {
    let mut init = quote!(#krate::agent::lifecycle::LifecycleGuard::new(#init));
    if let Some(policy) = r.policy {
        let policy = match policy {
            FailurePolicy::FailClosed => quote!(#krate::FailurePolicy::FailClosed),
            FailurePolicy::FailOpen => quote!(#krate::FailurePolicy::FailOpen),
        };
        init = quote!(#init.with_policy(#policy));
    }
    if let Some(ms) = r.timeout_ms {
        let ms = Literal::u64_suffixed(ms);
        init = quote!(#init.with_timeout(::core::time::Duration::from_millis(#ms)));
    }
    init
}

/// An expression of type `Option<Matcher>` that rebuilds `m` at run time.
pub(super) fn matcher_expr(krate: &syn::Path, m: &crate::spec::Matcher) -> TokenStream {
    use crate::spec::Matcher as M;
    let ty = quote!(#krate::matcher::Matcher);
    match m {
        M::All(ms) | M::Any(ms) => {
            let subs = ms.iter().map(|m| matcher_expr(krate, m));
            let ctor = if matches!(m, M::All(_)) {
                quote!(all)
            } else {
                quote!(any)
            };
            quote!((|| ::core::option::Option::Some(#ty::#ctor([#(#subs?),*])))())
        }
        M::Not(inner) => {
            let sub = matcher_expr(krate, inner);
            quote!((|| ::core::option::Option::Some(#ty::not(#sub?)))())
        }
        leaf => {
            let text = leaf.to_string();
            quote!(#ty::parse(#text).ok())
        }
    }
}
