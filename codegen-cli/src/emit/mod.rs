//! The emitter: [`AgentSpec`] -> Rust tokens. Shared by the `#[agent]`
//! macro and `cardgen`, so both front ends generate the very same code.
//!
//! For an agent it generates:
//!
//! * a tool-set struct (`<Agent>Tools`) with one field per statically known
//!   tool, whose type is that tool's whole chain: agent-level hooks in
//!   declared order (outermost first), then tool-level hooks, then
//!   the tool's own chain, `<Tool as ToolDecl>::Handler` (its own hooks,
//!   approval gate and error mapping around `ToolHandler<Tool>`, or just
//!   `ToolHandler<Tool>`). Matchers are resolved here, so a hook that cannot
//!   match a tool is absent from its chain. A hook with a non-default
//!   failure policy or a timeout is wrapped in `Guarded`;
//! * `impl ToolSet` for it, dispatching by name in constant time through a
//!   perfect hash computed here ([`spec::dispatch`](crate::spec::dispatch));
//! * `impl AgentDecl` for the agent type, whose `config()` carries every
//!   other field;
//! * type-level checks: `where` bounds on the generated struct and impls
//!   (`Path: ToolDecl`, `Path: Hook`, `Path: DeclaredAgent`, ..) that turn a
//!   path that is not a tool, hook or agent into one
//!   `#[diagnostic::on_unimplemented]` sentence, spanned on the reference
//!   when the front end has a span (the bodies assume the bounds, so they
//!   add no error of their own);
//! * for each child agent, a constant that fails to compile when the child
//!   is listed under another name than it was declared with.
//!
//! ```
//! use hookwire_codegen::emit::{self, EmitOptions};
//! use hookwire_codegen::spec::{AgentSpec, HookRef, ToolRef};
//!
//! let spec = AgentSpec::new("calc")
//!     .with_function_tool(ToolRef::new("AddOne", "add_one"))
//!     .with_tool_hook(HookRef::new("Audit"));
//! let tokens = emit::agent(&spec, &EmitOptions::new(syn::parse_quote!(::hookwire))).unwrap();
//! let code = emit::format_file(tokens, "example").unwrap();
//! assert!(code.starts_with("// @generated"));
//! assert!(code.contains("::hookwire::Layer<Audit, <AddOne as ::hookwire::ToolDecl>::Handler>"));
//! ```

use std::collections::HashSet;

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::spec::dispatch::PerfectHash;
use crate::spec::{
    AgentSpec, FailurePolicy, HistoryMergeTarget, HistorySource, HookKind, HookRef, ToolRef,
    ToolSource,
};

/// How to emit an agent.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EmitOptions {
    /// The path of the `hookwire` crate in the generated code (`::hookwire`,
    /// or what `proc-macro-crate` resolved for a renamed dependency).
    pub crate_path: syn::Path,
    /// The type that gets `impl AgentDecl`; `None` means the PascalCase
    /// form of the agent's name (see [`type_name_for`]).
    pub agent_type: Option<syn::Ident>,
    /// The name of the generated tool-set struct; `None` means
    /// `<agent_type>Tools`.
    pub tools_type: Option<syn::Ident>,
    /// The visibility of the generated items.
    pub vis: syn::Visibility,
    /// Whether the agent type's doc comment comes from the spec (cards);
    /// otherwise its attributes are [`agent_attrs`](Self::agent_attrs) (the
    /// `#[agent]` macro passes the user's). The agent type is always declared
    /// here: it owns its tool set.
    pub declare_agent_type: bool,
    /// The attributes of the agent type (the user's, for `#[agent]`).
    pub agent_attrs: Vec<syn::Attribute>,
}

impl EmitOptions {
    /// Options for `crate_path`: the agent type named after the agent, not
    /// declared, public items.
    pub fn new(crate_path: syn::Path) -> Self {
        Self {
            crate_path,
            agent_type: None,
            tools_type: None,
            vis: syn::parse_quote!(pub),
            declare_agent_type: false,
            agent_attrs: Vec::new(),
        }
    }

    /// Sets the attributes of the agent type.
    pub fn agent_attrs(mut self, attrs: Vec<syn::Attribute>) -> Self {
        self.agent_attrs = attrs;
        self
    }

    /// Sets the agent type.
    pub fn agent_type(mut self, ident: syn::Ident) -> Self {
        self.agent_type = Some(ident);
        self
    }

    /// Sets the tool-set type.
    pub fn tools_type(mut self, ident: syn::Ident) -> Self {
        self.tools_type = Some(ident);
        self
    }

    /// Sets the visibility of generated items.
    pub fn vis(mut self, vis: syn::Visibility) -> Self {
        self.vis = vis;
        self
    }

    /// Declares the agent type as a unit struct.
    pub fn declare_agent_type(mut self, yes: bool) -> Self {
        self.declare_agent_type = yes;
        self
    }
}

/// The PascalCase type name for an agent name: `PMO-orchestrator` ->
/// `PmoOrchestrator`, `ny_project_manager` -> `NyProjectManager`. A name
/// that does not start with a letter gets an `Agent` prefix; `None` if
/// nothing is left.
pub fn type_name_for(name: &str) -> Option<String> {
    let mut out = String::new();
    for word in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            let rest: String = chars.collect();
            // Keep camelCase words (`myAgent`) but lower ALLCAPS ones (`PMO`).
            if rest.chars().all(|c| !c.is_ascii_lowercase()) {
                out.push_str(&rest.to_ascii_lowercase());
            } else {
                out.push_str(&rest);
            }
        }
    }
    if out.is_empty() {
        return None;
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert_str(0, "Agent");
    }
    if syn::parse_str::<syn::Ident>(&out).is_err() {
        out.push_str("Agent");
    }
    Some(out)
}

/// Formats generated tokens as a file: prettyplease, with a `// @generated`
/// header naming `source`.
pub fn format_file(tokens: TokenStream, source: &str) -> syn::Result<String> {
    let file: syn::File = syn::parse2(tokens)?;
    let body = prettyplease::unparse(&file);
    Ok(format!(
        "// @generated by cardgen from {source}. Do not edit.\n\n{body}"
    ))
}

fn parse_path(text: &str, what: &str, span: Span) -> syn::Result<syn::Type> {
    syn::parse_str::<syn::Type>(text)
        .map(|ty| respan_type(ty, span))
        .map_err(|e| syn::Error::new(span, format!("invalid {what} type `{text}`: {e}")))
}

/// [`parse_path`], respanning only when the front end gave a span.
pub(crate) fn parse_path_at(
    text: &str,
    what: &str,
    info: &crate::spec::SpanInfo,
) -> syn::Result<syn::Type> {
    match info {
        Some(span) => parse_path(text, what, *span),
        None => syn::parse_str::<syn::Type>(text).map_err(|e| {
            syn::Error::new(
                Span::call_site(),
                format!("invalid {what} type `{text}`: {e}"),
            )
        }),
    }
}

fn parse_expr(text: &str, what: &str, span: Span) -> syn::Result<syn::Expr> {
    syn::parse_str::<syn::Expr>(text)
        .map_err(|e| syn::Error::new(span, format!("invalid {what} expression `{text}`: {e}")))
}

fn respan_type(ty: syn::Type, span: Span) -> syn::Type {
    syn::parse2(bound(span, quote!(#ty))).unwrap_or(ty)
}

/// Tokens (a `where` predicate, a type) whose every token, nested ones
/// included, carries `span` (the user's path), so that rustc reports an
/// unmet bound there and not on the whole macro call (a predicate mixing
/// spans is reported at the call site).
pub(crate) fn bound(span: Span, predicate: TokenStream) -> TokenStream {
    predicate
        .into_iter()
        .map(|mut tt| {
            respan_tree(&mut tt, span);
            tt
        })
        .collect()
}

fn respan_tree(tt: &mut proc_macro2::TokenTree, span: Span) {
    if let proc_macro2::TokenTree::Group(g) = tt {
        let inner: TokenStream = g
            .stream()
            .into_iter()
            .map(|mut t| {
                respan_tree(&mut t, span);
                t
            })
            .collect();
        let mut group = proc_macro2::Group::new(g.delimiter(), inner);
        group.set_span(span);
        *g = group;
    } else {
        tt.set_span(span);
    }
}

fn span_of(span: &crate::spec::SpanInfo) -> Span {
    span.unwrap_or_else(Span::call_site)
}

fn usize_lit(n: u64, what: &str, span: Span) -> syn::Result<Literal> {
    usize::try_from(n)
        .map(Literal::usize_suffixed)
        .map_err(|_| syn::Error::new(span, format!("`{what}` is too large: {n}")))
}

/// A hook reference lowered to its type in a chain and the expression that
/// builds it (shared with the `#[tool(hooks = [..])]` lowering).
#[derive(Clone)]
pub(crate) struct Hook {
    pub(crate) ty: syn::Type,
    pub(crate) init: TokenStream,
}

/// `deps` is the agent's dependency type: the hook is built from the
/// agent's dependencies (`BuildHook`: its `Default`, or its `FromDeps`);
/// without it (a tool's own hooks, built with the tool), from none.
pub(crate) fn lower_hook(
    krate: &syn::Path,
    r: &HookRef,
    deps: Option<&syn::Type>,
) -> syn::Result<Hook> {
    let span = span_of(&r.span);
    let base = parse_path_at(&r.ty, "hook", &r.span)?;
    let base_init = match (&r.init, deps) {
        (Some(init), _) => {
            let e = parse_expr(init, "hook", span)?;
            quote!(#e)
        }
        (None, Some(deps)) => {
            quote_spanned!(span=> <#base as #krate::deps::BuildHook<#deps>>::build_hook(deps))
        }
        (None, None) => {
            quote_spanned!(span=> <#base as #krate::deps::BuildHook<()>>::build_hook(&()))
        }
    };
    let (mut ty, mut init) = match r.kind {
        HookKind::Around => (quote!(#base), base_init),
        HookKind::Pre => (quote!(#krate::Pre<#base>), quote!(#krate::Pre(#base_init))),
        HookKind::Post => (
            quote!(#krate::Post<#base>),
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
    Ok(Hook {
        ty: syn::parse2(ty)?,
        init,
    })
}

fn source_tokens(krate: &syn::Path, source: ToolSource) -> TokenStream {
    match source {
        ToolSource::Mcp => quote!(#krate::ToolSource::Mcp),
        ToolSource::Function => quote!(#krate::ToolSource::Function),
        ToolSource::Agent => quote!(#krate::ToolSource::Agent),
        ToolSource::Runtime => quote!(#krate::ToolSource::Runtime),
    }
}

/// The type-level checks of an agent, as `where` predicates spanned on the
/// user's paths.
#[derive(Default)]
struct Checks {
    /// That each tool is a tool and each child an agent: the tool-set
    /// struct's field types need them.
    types: Vec<TokenStream>,
    /// That each hook is a hook: only the impls need them (a bound on the
    /// struct would also be checked, with a second error, wherever the
    /// struct is named outside them, such as the `static` in `tools()`).
    hooks: Vec<TokenStream>,
}

impl Checks {
    fn types(&self) -> TokenStream {
        let types = &self.types;
        quote!(where #(#types,)*)
    }

    fn all(&self) -> TokenStream {
        let (types, hooks) = (&self.types, &self.hooks);
        quote!(where #(#types,)* #(#hooks,)*)
    }
}

/// One statically known tool with its resolved chain.
struct Lowered {
    name: String,
    /// The tool's type (a `ToolDecl`).
    tool_ty: TokenStream,
    source: ToolSource,
    chain_ty: TokenStream,
    chain_init: TokenStream,
    /// `.inner()` calls from the chain to the tool's own handler.
    depth: usize,
    /// The hooks of the chain, outermost first, as traces name them.
    hook_names: Vec<String>,
}

/// Emits the tool set and the `AgentDecl` impl of `spec`.
///
/// Errors (spanned on the offending reference when the spec carries spans):
/// a type path or init expression that does not parse, two tools with the
/// same name, a number that does not fit `usize`, a name that gives no
/// Rust type name.
pub fn agent(spec: &AgentSpec, opts: &EmitOptions) -> syn::Result<TokenStream> {
    let krate = &opts.crate_path;
    let agent_span = span_of(&spec.span);
    let agent_ty = match &opts.agent_type {
        Some(ident) => ident.clone(),
        None => {
            let name = type_name_for(&spec.name).ok_or_else(|| {
                syn::Error::new(
                    agent_span,
                    format!("agent name `{}` gives no Rust type name", spec.name),
                )
            })?;
            syn::Ident::new(&name, agent_span)
        }
    };
    let tools_ty = opts
        .tools_type
        .clone()
        .unwrap_or_else(|| format_ident!("{}Tools", agent_ty));
    let vis = &opts.vis;
    let deps_ty: syn::Type = match &spec.deps {
        Some(text) => {
            let path = parse_path_at(text, "dependency type", &spec.span)?;
            syn::parse_quote!(#path)
        }
        None => syn::parse_quote!(()),
    };

    // A hook whose matcher selects none of the tools would be dropped from
    // every chain without a word: an error on the hook, one per hook.
    let mut unmatched: Option<syn::Error> = None;
    for hook in spec.hooks_selecting_no_tool() {
        let error = syn::Error::new(span_of(&hook.span), hook.message(spec));
        match &mut unmatched {
            Some(all) => all.combine(error),
            None => unmatched = Some(error),
        }
    }
    if let Some(error) = unmatched {
        return Err(error);
    }

    // Type-level checks as `where` bounds on the generated impls, each
    // spanned on the path the user wrote: a path that is not a tool, hook or
    // agent is one error, on that path, and the impls' bodies (which assume
    // the bounds) add none.
    let mut checks = Checks::default();
    // Agent-level hooks are lowered once (and so checked even if they match
    // no static tool), then reused in every chain they are part of.
    let agent_hooks = spec
        .tool_hooks
        .iter()
        .map(|h| lower_hook(krate, h, Some(&deps_ty)))
        .collect::<syn::Result<Vec<_>>>()?;
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
        lowered.push(lower_tool(
            krate,
            spec,
            &agent_hooks,
            tool,
            &deps_ty,
            &mut checks,
        )?);
    }
    let mut name_checks = Vec::new();
    for child in &spec.agents {
        // A child agent is a tool like any other: `agent__<Name>`, an
        // `AgentTool` that runs a fresh child per call, wrapped in the
        // agent-level hooks that match it (its source is `agent`).
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
        let ty = parse_path_at(&child_ty, "agent", &child.span)?;
        checks
            .types
            .push(bound(span, quote!(#ty: #krate::declare::DeclaredAgent)));
        // The tool name the parent uses must be the child's own
        // (`agent__<declared name>`): checked at compile time.
        let used = child.name.as_str();
        let path_text = quote!(#ty).to_string().replace(' ', "");
        name_checks.push(bound(
            span,
            quote! {
                const _: () = #krate::declare::child_agent_name(
                    <#ty as #krate::declare::DeclaredAgent>::NAME,
                    #used,
                    #path_text,
                );
            },
        ));
        // The child is built from this agent's dependencies, once, and
        // its calls are governed by this agent's (the orchestrator's)
        // options.
        let tool = crate::spec::ToolRef {
            ty: quote!(#krate::agent::AgentTool<#ty>).to_string(),
            init: Some(
                quote!(#krate::agent::AgentTool::with_configured_model(
                    <#ty as #krate::FromDeps<#deps_ty>>::from_deps(deps)
                )
                .with_orchestrator(config))
                .to_string(),
            ),
            name: child.tool_name(),
            source: ToolSource::Agent,
            hooks: Vec::new(),
            span: child.span,
        };
        if !seen.insert(child.tool_name()) {
            return Err(syn::Error::new(
                span,
                format!("duplicate agent `{}` in agent `{}`", child.name, spec.name),
            ));
        }
        lowered.push(lower_tool(
            krate,
            spec,
            &agent_hooks,
            &tool,
            &deps_ty,
            &mut checks,
        )?);
    }
    for hook in &spec.tool_hooks {
        hook_check(krate, hook, &mut checks)?;
    }

    let lifecycle = emit_lifecycle(krate, spec, &mut checks)?;
    let bounds = checks.all();
    let parts = ToolSetParts {
        ty: &tools_ty,
        deps_ty: &deps_ty,
        tools: &lowered,
        agent_hooks: &agent_hooks,
    };
    let tools_struct = emit_tools(krate, spec, vis, &parts, &checks)?;
    let config = emit_config(krate, spec)?;
    let agent_name = &spec.name;

    let attrs = if opts.declare_agent_type {
        let doc = format!(" The agent `{agent_name}`.");
        let extra = match &spec.description {
            Some(d) => {
                let d = format!(" {d}");
                quote!(#[doc = ""] #[doc = #d])
            }
            None => quote!(),
        };
        quote! {
            #[doc = #doc]
            #extra
        }
    } else {
        let attrs = &opts.agent_attrs;
        quote!(#(#attrs)*)
    };
    let types = checks.types();
    // The agent is a value: it owns its tool set (each tool behind its
    // chain, child agents built once) and its configuration. Nothing of it
    // lives in a `static`.
    let declare = quote! {
        #attrs
        #vis struct #agent_ty #types {
            tools: #tools_ty,
            config: #krate::agent::AgentConfig,
        }
    };
    let new_doc = format!(
        " Builds the agent `{agent_name}`: every tool, hook and child agent, from the dependencies. Share the value (an `Arc`) between sessions: each `Runner` is one."
    );
    // Cards get a `Debug` impl; a macro user derives it if they want it.
    let debug = if opts.declare_agent_type {
        quote! {
            impl ::core::fmt::Debug for #agent_ty #bounds {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(::core::stringify!(#agent_ty))
                        .field("name", &self.config.name)
                        .field("tools", &self.tools)
                        .finish()
                }
            }
        }
    } else {
        quote!()
    };
    let (constructor, from_deps) = if spec.deps.is_some() {
        (
            quote! {
                #[doc = #new_doc]
                #vis fn new(deps: &#deps_ty) -> Self {
                    let config = #config;
                    let tools = #tools_ty::new(deps, &config);
                    Self { tools, config }
                }
            },
            quote! {
                impl<__D> #krate::FromDeps<__D> for #agent_ty
                #bounds
                    #deps_ty: #krate::FromRef<__D>,
                {
                    fn from_deps(deps: &__D) -> Self {
                        Self::new(&<#deps_ty as #krate::FromRef<__D>>::from_ref(deps))
                    }
                }
            },
        )
    } else {
        (
            quote! {
                #[doc = #new_doc]
                #vis fn new() -> Self {
                    let config = #config;
                    let tools = #tools_ty::new(&(), &config);
                    Self { tools, config }
                }
            },
            quote! {
                impl<__D> #krate::FromDeps<__D> for #agent_ty #bounds {
                    fn from_deps(_: &__D) -> Self {
                        Self::new()
                    }
                }

                impl ::core::default::Default for #agent_ty #bounds {
                    fn default() -> Self {
                        Self::new()
                    }
                }
            },
        )
    };

    let call_dynamic = emit_call_dynamic(krate, spec);
    let selecting_none = emit_hooks_selecting_none(krate, spec);
    let hooks_for = emit_hooks_for(krate, spec, &lowered);
    let agent_name_lit = str_lit(agent_name);

    Ok(quote! {
        #declare
        #tools_struct

        impl #agent_ty #bounds {
            #constructor
        }

        #from_deps

        #debug

        impl #krate::agent::AgentDecl for #agent_ty #bounds {
            type Tools = #tools_ty;

            fn config(&self) -> &#krate::agent::AgentConfig {
                &self.config
            }

            fn tools(&self) -> &#tools_ty {
                &self.tools
            }

            #call_dynamic

            #selecting_none

            #hooks_for

            #lifecycle
        }

        impl #krate::declare::DeclaredAgent for #agent_ty #bounds {
            const NAME: &'static str = #agent_name_lit;
        }

        #(#name_checks)*
    })
}

/// The matcher of agent-level hook `i`, compiled once, in a `static`
/// (inside the generated function that uses it): its name and its item.
fn matcher_static(
    krate: &syn::Path,
    i: usize,
    m: &crate::spec::Matcher,
) -> (syn::Ident, TokenStream) {
    let ident = format_ident!("__HOOKWIRE_MATCHER_{}", i);
    let expr = matcher_expr(krate, m);
    let item = quote! {
        static #ident: ::std::sync::LazyLock<::core::option::Option<#krate::matcher::Matcher>> =
            ::std::sync::LazyLock::new(|| #expr);
    };
    (ident, item)
}

/// `AgentDecl::call_dynamic`: the agent-level hooks, in declared order,
/// around a tool discovered at run time. A hook whose matcher is not `*` is
/// wrapped in `When`, which evaluates the matcher on each call (compiled
/// once, in a `static`).
fn emit_call_dynamic(krate: &syn::Path, spec: &AgentSpec) -> TokenStream {
    // Only an agent with MCP servers has tools discovered at run time; for
    // one without, the chain is never called, and compiling it would cost
    // the recursion depth of a `When` per matched hook for nothing.
    if spec.tool_hooks.is_empty() || spec.servers.is_empty() {
        return quote!();
    }
    let mut statics = Vec::new();
    let mut layers = Vec::new();
    // The hooks were built with the tool set, from the agent's dependencies
    // (its `dynamic_hooks`); each call borrows them.
    for (i, r) in spec.tool_hooks.iter().enumerate() {
        let index = syn::Index::from(i);
        let init = quote!(&self.tools.dynamic_hooks.#index);
        if r.matcher.is_always() {
            layers.push(init.clone());
        } else {
            let (ident, matcher) = matcher_static(krate, i, &r.matcher);
            statics.push(matcher);
            layers.push(quote!(#krate::When::new(&#ident, #init)));
        }
    }
    let mut chain = quote!(inner);
    for layer in layers.iter().rev() {
        chain = quote!(#krate::Layer::new(#layer, #chain));
    }
    quote! {
        async fn call_dynamic<__C: #krate::Handler>(
            &self,
            cx: &mut #krate::ToolContext,
            args: #krate::ToolArgs,
            inner: &__C,
        ) -> #krate::Outcome {
            #(#statics)*
            let chain = #chain;
            #krate::catch_panics(&chain, cx, args).await
        }
    }
}

/// `AgentDecl::hooks_selecting_none`: for an agent with tools discovered
/// at run time, which agent-level hooks with a matcher select none of the
/// tools it has once they are known (each matcher compiled once, in a
/// `static`). Nothing for an agent without servers: there the same check is
/// a compile error.
fn emit_hooks_selecting_none(krate: &syn::Path, spec: &AgentSpec) -> TokenStream {
    if spec.servers.is_empty() || spec.tool_hooks.iter().all(|h| h.matcher.is_always()) {
        return quote!();
    }
    let mut checks = Vec::new();
    for (i, r) in spec.tool_hooks.iter().enumerate() {
        if r.matcher.is_always() {
            continue;
        }
        let (ident, matcher) = matcher_static(krate, i, &r.matcher);
        let name = str_lit(r.display_name());
        let pattern = str_lit(&r.matcher.to_string());
        checks.push(quote! {
            #matcher
            if !#krate::declare::selects_any(&#ident, tools) {
                none.push((#name, ::std::string::String::from(#pattern)));
            }
        });
    }
    quote! {
        fn hooks_selecting_none(
            &self,
            tools: &[(&str, #krate::ToolSource)],
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
fn trace_name(hook: &HookRef) -> &str {
    let name = hook.display_name();
    name.rsplit(':').next().unwrap_or(name)
}

/// `AgentDecl::hooks_for`: the hooks of a tool's chain, outermost first,
/// for the trace: a static tool's resolved chain, and for a tool
/// discovered at run time the agent-level hooks whose matcher selects it.
fn emit_hooks_for(krate: &syn::Path, spec: &AgentSpec, tools: &[Lowered]) -> TokenStream {
    if spec.tool_hooks.is_empty() && tools.iter().all(|t| t.hook_names.is_empty()) {
        return quote!();
    }
    let arms = tools.iter().filter(|t| !t.hook_names.is_empty()).map(|t| {
        let name = &t.name;
        let hooks = &t.hook_names;
        quote!(#name => ::std::vec![#(#hooks),*],)
    });
    // For a tool found at run time: each agent-level hook, with the
    // matcher it needs (compiled once, in a `static`) if it has one.
    let mut statics = Vec::new();
    let mut entries = Vec::new();
    if !spec.servers.is_empty() {
        for (i, r) in spec.tool_hooks.iter().enumerate() {
            let name = str_lit(trace_name(r));
            if r.matcher.is_always() {
                entries.push(quote!((#name, ::core::option::Option::None)));
            } else {
                let (ident, matcher) = matcher_static(krate, i, &r.matcher);
                statics.push(matcher);
                entries.push(quote!((#name, ::core::option::Option::Some(&#ident))));
            }
        }
    }
    let fallback = if entries.is_empty() {
        quote!(_ => {
            let _ = source;
            ::std::vec::Vec::new()
        })
    } else {
        quote!(_ => {
            #(#statics)*
            let hooks: &[(
                &'static str,
                ::core::option::Option<
                    &::std::sync::LazyLock<::core::option::Option<#krate::matcher::Matcher>>,
                >,
            )] = &[#(#entries),*];
            hooks
                .iter()
                .filter(|(_, matcher)| {
                    matcher.is_none_or(|m| #krate::declare::selects_any(m, &[(tool, source)]))
                })
                .map(|(name, _)| *name)
                .collect()
        })
    };
    quote! {
        fn hooks_for(
            &self,
            tool: &str,
            source: #krate::ToolSource,
        ) -> ::std::vec::Vec<&'static str> {
            match tool {
                #(#arms)*
                #fallback
            }
        }
    }
}

/// `AgentDecl::lifecycle_hooks`: the declared lifecycle hooks as a tuple, in
/// declared order; one with a matcher other than `*` is wrapped in
/// `ForTools`, which limits its tool events to the tools it selects.
fn emit_lifecycle(
    krate: &syn::Path,
    spec: &AgentSpec,
    checks: &mut Checks,
) -> syn::Result<TokenStream> {
    if spec.lifecycle_hooks.is_empty() {
        return Ok(quote!());
    }
    let mut hooks = Vec::new();
    for r in &spec.lifecycle_hooks {
        let span = span_of(&r.span);
        let ty = parse_path_at(&r.ty, "lifecycle hook", &r.span)?;
        checks.hooks.push(bound(
            span,
            quote!(#ty: #krate::agent::lifecycle::LifecycleHooks),
        ));
        let init = quote_spanned!(span=> <#ty as ::core::default::Default>::default());
        if r.matcher.is_always() {
            hooks.push(init);
        } else {
            let m = matcher_expr(krate, &r.matcher);
            hooks.push(quote! {
                #krate::agent::lifecycle::ForTools::new(
                    (#m).unwrap_or_else(|| #krate::matcher::Matcher::any([])),
                    #init,
                )
            });
        }
    }
    Ok(quote! {
        fn lifecycle_hooks(&self) -> impl #krate::agent::lifecycle::LifecycleHooks {
            (#(#hooks,)*)
        }
    })
}

/// An expression of type `Option<Matcher>` that rebuilds `m` at run time.
fn matcher_expr(krate: &syn::Path, m: &crate::spec::Matcher) -> TokenStream {
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

fn hook_check(krate: &syn::Path, hook: &HookRef, checks: &mut Checks) -> syn::Result<()> {
    let span = span_of(&hook.span);
    let ty = parse_path_at(&hook.ty, "hook", &hook.span)?;
    let check = match hook.kind {
        HookKind::Around => bound(span, quote!(#ty: #krate::Hook)),
        HookKind::Pre => bound(span, quote!(#ty: #krate::PreHook)),
        HookKind::Post => bound(span, quote!(#ty: #krate::PostHook)),
    };
    checks.hooks.push(check);
    Ok(())
}

fn lower_tool(
    krate: &syn::Path,
    spec: &AgentSpec,
    agent_hooks: &[Hook],
    tool: &ToolRef,
    deps_ty: &syn::Type,
    checks: &mut Checks,
) -> syn::Result<Lowered> {
    let span = span_of(&tool.span);
    let ty = parse_path_at(&tool.ty, "tool", &tool.span)?;
    // A child agent's tool is checked through the agent (`DeclaredAgent`).
    if tool.source != ToolSource::Agent {
        checks
            .types
            .push(bound(span, quote!(#ty: #krate::ToolDecl)));
    }
    for hook in &tool.hooks {
        hook_check(krate, hook, checks)?;
    }
    let init = match &tool.init {
        Some(init) => {
            let e = parse_expr(init, "tool", span)?;
            quote!(#e)
        }
        None => quote_spanned!(span=> <#ty as #krate::FromDeps<#deps_ty>>::from_deps(deps)),
    };
    let chain = spec.resolved_chain(&tool.name, tool.source, &tool.hooks);
    let hook_names = chain.iter().map(|h| trace_name(h).to_owned()).collect();
    let hooks = chain
        .into_iter()
        .map(
            |h| match spec.tool_hooks.iter().position(|a| std::ptr::eq(a, h)) {
                Some(i) => Ok(agent_hooks[i].clone()),
                None => lower_hook(krate, h, Some(deps_ty)),
            },
        )
        .collect::<syn::Result<Vec<_>>>()?;
    // The innermost handler is the tool's own chain (its own hooks, approval
    // gate and error mapping), `ToolHandler<T>` for a tool without them.
    let mut chain_ty = quote!(<#ty as #krate::ToolDecl>::Handler);
    let mut chain_init = quote!(#krate::ToolDecl::into_handler(#init));
    for hook in hooks.iter().rev() {
        let hty = &hook.ty;
        let hinit = &hook.init;
        chain_ty = quote!(#krate::Layer<#hty, #chain_ty>);
        chain_init = quote!(#krate::Layer::new(#hinit, #chain_init));
    }
    Ok(Lowered {
        name: tool.name.clone(),
        tool_ty: quote!(#ty),
        source: tool.source,
        chain_ty,
        chain_init,
        depth: hooks.len(),
        hook_names,
    })
}

/// What the tool-set struct is made of.
struct ToolSetParts<'a> {
    /// Its name.
    ty: &'a syn::Ident,
    /// The agent's dependency type, which `new` takes.
    deps_ty: &'a syn::Type,
    /// The statically known tools, each with its chain.
    tools: &'a [Lowered],
    /// The agent-level hooks, kept for tools discovered at run time.
    agent_hooks: &'a [Hook],
}

fn emit_tools(
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
    let types = checks.types();
    let bounds = checks.all();
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
        let inners = (0..t.depth).map(|_| quote!(.inner()));
        let ty = &t.tool_ty;
        // `.inner()` already gives a reference.
        let handler = if t.depth == 0 {
            quote!(&this.#f)
        } else {
            quote!(this.#f #(#inners)*)
        };
        quote!(#krate::Tool::definition(<#ty as #krate::ToolDecl>::tool(#handler)))
    });
    let n = tools.len();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    // The agent-level hooks once more, for the chains of tools discovered
    // at run time (`AgentDecl::call_dynamic` borrows them).
    let (dynamic_field, dynamic_init) = if agent_hooks.is_empty() || spec.servers.is_empty() {
        (quote!(), quote!())
    } else {
        let tys = agent_hooks.iter().map(|h| &h.ty);
        let inits = agent_hooks.iter().map(|h| &h.init);
        (
            quote!(dynamic_hooks: (#(#tys,)*),),
            quote!(dynamic_hooks: (#(#inits,)*),),
        )
    };

    let (index_fn, source_body, dispatch_fn) = if n == 0 {
        (
            quote!(),
            quote!({
                let _ = name;
                ::core::option::Option::None
            }),
            quote! {
                async fn dispatch(
                    &self,
                    _scope: &#krate::CallScope,
                    call: #krate::ToolCall,
                ) -> #krate::Outcome {
                    ::core::result::Result::Err(#krate::ToolError::UnknownTool { name: call.name })
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
                let pattern = dispatch.pattern(slot, &t.name, quote!(call.name));
                let name = &t.name;
                let source = source_tokens(krate, t.source);
                quote! {
                    #pattern => {
                        let mut cx = scope.context(
                            ::std::borrow::Cow::Borrowed(#name),
                            #source,
                            ::core::option::Option::None,
                            call.id,
                        );
                        #krate::catch_panics(&self.#f, &mut cx, call.arguments).await
                    }
                }
            })
            .collect();
        let call_scrutinee = dispatch.scrutinee(quote!(call.name));
        let source_body = if dispatch.hashed {
            let arms = dispatch.order.iter().enumerate().map(|(slot, &i)| {
                let slot = Literal::usize_unsuffixed(slot);
                let tool = &tools[i].name;
                let source = source_tokens(krate, tools[i].source);
                quote!(#slot if name == #tool => ::core::option::Option::Some(#source),)
            });
            quote!({
                match Self::index(name) {
                    #(#arms)*
                    _ => ::core::option::Option::None,
                }
            })
        } else {
            let arms = tools.iter().map(|t| {
                let tool = &t.name;
                let source = source_tokens(krate, t.source);
                quote!(#tool => ::core::option::Option::Some(#source),)
            });
            quote!({
                match name {
                    #(#arms)*
                    _ => ::core::option::Option::None,
                }
            })
        };
        (
            dispatch.index_fn,
            source_body,
            quote! {
                async fn dispatch(
                    &self,
                    scope: &#krate::CallScope,
                    call: #krate::ToolCall,
                ) -> #krate::Outcome {
                    match #call_scrutinee {
                        #(#arms)*
                        _ => ::core::result::Result::Err(
                            #krate::ToolError::UnknownTool { name: call.name },
                        ),
                    }
                }
            },
        )
    };

    Ok(quote! {
        #[doc = #doc]
        // Each field's type is a whole chain: nested by design.
        #[allow(clippy::type_complexity)]
        #vis struct #tools_ty #types {
            #(#fields: #chain_tys,)*
            #dynamic_field
            definitions: ::std::vec::Vec<#krate::ToolDefinition>,
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
                    definitions: ::std::vec::Vec::new(),
                };
                this.definitions = ::std::vec![#(#definition_exprs),*];
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
                self.definitions.clone()
            }

            fn source(&self, name: &str) -> ::core::option::Option<#krate::ToolSource> #source_body

            #dispatch_fn
        }
    })
}

/// Up to this many tools, a tool set dispatches with a plain `match` on the
/// name (what a hand-written function does; the compiler switches on the
/// length, then compares bytes); above it, through the perfect hash.
const MATCH_MAX: usize = 8;

/// How a generated tool set finds a tool by name.
struct Dispatch {
    /// Whether names go through the perfect hash (else a `match` on the name).
    hashed: bool,
    /// The declared position of the tool in each slot.
    order: Vec<usize>,
    /// The perfect hash's tables and `index` function (empty for a `match`).
    index_fn: TokenStream,
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
                #krate::__dispatch::index(Self::KEY, &Self::PILOTS, #n_lit, name.as_bytes())
            }
        };
        Self {
            hashed: true,
            order: ph.map.clone(),
            index_fn,
        }
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

fn str_lit(s: &str) -> Literal {
    Literal::string(s)
}

fn emit_config(krate: &syn::Path, spec: &AgentSpec) -> syn::Result<TokenStream> {
    let span = span_of(&spec.span);
    let name = str_lit(&spec.name);
    let mut calls = Vec::new();
    if !spec.instruction.is_empty() {
        let s = str_lit(&spec.instruction);
        calls.push(quote!(.with_instruction(#s)));
    }
    if let Some(d) = &spec.description {
        let s = str_lit(d);
        calls.push(quote!(.with_description(#s)));
    }
    if spec.default {
        calls.push(quote!(.with_default(true)));
    }
    for server in &spec.servers {
        let s = str_lit(server);
        calls.push(quote!(.with_server(#s)));
    }
    for filter in &spec.mcp_tools {
        let s = str_lit(&filter.server);
        let globs = filter.globs.iter().map(|g| str_lit(g));
        if filter.globs.is_empty() {
            calls.push(quote!(.with_mcp_filter(#s, ::core::iter::empty::<&'static str>())));
        } else {
            calls.push(quote!(.with_mcp_filter(#s, [#(#globs),*])));
        }
    }
    for child in &spec.agents {
        let s = str_lit(&child.name);
        calls.push(quote!(.with_agent(#s)));
    }
    if let Some(n) = spec.max_parallel {
        let n = usize_lit(n, "max_parallel", span)?;
        calls.push(quote!(.with_max_parallel(#n)));
    }
    if let Some(secs) = spec.child_timeout_sec {
        let secs = Literal::u64_suffixed(secs);
        calls.push(quote!(.with_child_timeout(::core::time::Duration::from_secs(#secs))));
    }
    let hs = match spec.history_source {
        HistorySource::None => None,
        HistorySource::Child => Some(quote!(Child)),
        HistorySource::Orchestrator => Some(quote!(Orchestrator)),
        HistorySource::Messages => Some(quote!(Messages)),
    };
    if let Some(v) = hs {
        calls.push(quote!(.with_history_source(#krate::agent::HistorySource::#v)));
    }
    let ht = match spec.history_merge_target {
        HistoryMergeTarget::None => None,
        HistoryMergeTarget::Child => Some(quote!(Child)),
        HistoryMergeTarget::Orchestrator => Some(quote!(Orchestrator)),
    };
    if let Some(v) = ht {
        calls.push(quote!(.with_history_merge_target(#krate::agent::HistoryMergeTarget::#v)));
    }
    if let Some(n) = spec.max_display_instances {
        let n = usize_lit(n, "max_display_instances", span)?;
        calls.push(quote!(.with_max_display_instances(#n)));
    }
    if let Some(model) = &spec.model {
        let s = str_lit(model);
        calls.push(quote!(.with_model(#s)));
    }
    if let Some(use_history) = spec.use_history {
        calls.push(quote!(.with_use_history(#use_history)));
    }
    for hook in &spec.hooks {
        if let Some(call) = request_hook(krate, hook)? {
            calls.push(quote!(.with_request_hook(#call)));
        }
    }
    let base = quote!(#krate::agent::AgentConfig::new(#name) #(#calls)*);
    Ok(match &spec.tool_input_schema {
        None => base,
        Some(schema) => {
            let s = str_lit(schema);
            quote! {{
                let config = #base;
                match #krate::serde_json::from_str(#s) {
                    ::core::result::Result::Ok(schema) => config.with_tool_input_schema(schema),
                    ::core::result::Result::Err(_) => config,
                }
            }}
        }
    })
}

/// A `kind: tool_call` entry as a `hookwire::agent::RequestHook`; `None`
/// for actions the runtime has no config-driven form of.
fn request_hook(
    krate: &syn::Path,
    hook: &crate::spec::EventHookSpec,
) -> syn::Result<Option<TokenStream>> {
    use crate::spec::{EventHookAction, Frequency, HookEvent, RefreshCondition};
    let span = span_of(&hook.span);
    let EventHookAction::ToolCall(call) = &hook.action else {
        return Ok(None);
    };
    let event = match hook.event {
        HookEvent::OnRequestStart => None,
        HookEvent::OnCompletion => Some(quote!(.at(#krate::agent::HookEvent::OnCompletion))),
        other => {
            return Err(syn::Error::new(
                span,
                format!(
                    "`kind: tool_call` hooks fire at `on_request_start` or `on_completion`, not `{other}`"
                ),
            ));
        }
    };
    let tool = str_lit(&call.tool_name);
    let mut calls = vec![];
    calls.extend(event);
    if let Some(toolset) = &call.toolset_name {
        let t = str_lit(toolset);
        calls.push(quote!(.in_toolset(#t)));
    }
    if call.arguments.trim() != "{}" && !call.arguments.trim().is_empty() {
        let a = str_lit(&call.arguments);
        calls.push(quote!(.with_arguments(
            #krate::serde_json::from_str(#a).unwrap_or_default()
        )));
    }
    let freq = match call.frequency {
        Frequency::Always => quote!(Always),
        Frequency::AppendIfChanged => quote!(AppendIfChanged),
    };
    calls.push(quote!(.with_frequency(#krate::agent::Frequency::#freq)));
    if let Some(RefreshCondition::Ttl { ttl_minutes }) = call.refresh_condition {
        let m = Literal::u64_suffixed(ttl_minutes);
        calls.push(quote!(.with_ttl_minutes(#m)));
    }
    let mut sets = Vec::new();
    if let Some(name) = &hook.name {
        let n = str_lit(name);
        sets.push(
            quote!(hook.name = ::core::option::Option::Some(::std::string::String::from(#n));),
        );
    }
    if let Some(secs) = hook.timeout_sec {
        let secs = Literal::f64_suffixed(secs as f64);
        sets.push(quote!(hook.timeout_sec = ::core::option::Option::Some(#secs);));
    }
    let base = quote!(#krate::agent::RequestHook::on_request_start(#tool) #(#calls)*);
    Ok(Some(if sets.is_empty() {
        base
    } else {
        quote!({
            let mut hook = #base;
            #(#sets)*
            hook
        })
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::spec::{AgentRef, HookRef, ToolRef};

    fn emit(spec: &AgentSpec) -> String {
        let tokens = agent(spec, &EmitOptions::new(syn::parse_quote!(::hookwire))).unwrap();
        format_file(tokens, "test").unwrap()
    }

    #[test]
    fn type_names() {
        assert_eq!(
            type_name_for("PMO-orchestrator").as_deref(),
            Some("PmoOrchestrator")
        );
        assert_eq!(
            type_name_for("NY-Project-Manager").as_deref(),
            Some("NyProjectManager")
        );
        assert_eq!(type_name_for("myAgent").as_deref(), Some("MyAgent"));
        assert_eq!(type_name_for("9lives").as_deref(), Some("Agent9lives"));
        assert_eq!(type_name_for("self").as_deref(), Some("SelfAgent"));
        assert_eq!(type_name_for("--"), None);
    }

    #[test]
    fn chains_follow_the_ordering_rule_and_drop_non_matching_hooks() {
        let spec = AgentSpec::new("a")
            .with_function_tool(ToolRef::new("ReadFile", "read_file").with_hook(HookRef::new("T")))
            .with_function_tool(ToolRef::new("Shell", "shell"))
            .with_tool_hook(HookRef::new("Outer"))
            .with_tool_hook(HookRef::new("Reads").with_match("read_*").unwrap())
            .with_tool_hook(
                HookRef::new("Slow")
                    .with_policy(FailurePolicy::FailOpen)
                    .with_timeout_ms(250),
            );
        let code = emit(&spec);
        assert!(code.contains(
            "tool_0: ::hookwire::Layer<\n        Outer,\n        ::hookwire::Layer<\n            Reads,\n            ::hookwire::Layer<\n                ::hookwire::Guarded<Slow>,\n                ::hookwire::Layer<T, <ReadFile as ::hookwire::ToolDecl>::Handler>,"
        ), "{code}");
        assert!(code.contains(
            "tool_1: ::hookwire::Layer<\n        Outer,\n        ::hookwire::Layer<\n            ::hookwire::Guarded<Slow>,\n            <Shell as ::hookwire::ToolDecl>::Handler,\n        >,\n    >,"
        ), "{code}");
        assert!(code.contains("::core::time::Duration::from_millis(250u64)"));
        assert!(code.contains("::hookwire::FailurePolicy::FailOpen"));
    }

    #[test]
    fn output_is_deterministic_and_names_dispatch_through_a_perfect_hash() {
        let mut spec = AgentSpec::new("many");
        for i in 0..50 {
            spec = spec.with_function_tool(ToolRef::new(format!("T{i}"), format!("tool_{i}")));
        }
        spec = spec.with_agent(AgentRef::new("child"));
        let a = emit(&spec);
        assert_eq!(a, emit(&spec));
        assert!(a.contains("__dispatch::index"));
        // Each arm compares the name with the one tool its slot can hold.
        for i in 0..50 {
            assert!(
                a.contains(&format!(" if call.name == \"tool_{i}\" => {{")),
                "{a}"
            );
            assert!(
                a.contains(&format!(
                    " if name == \"tool_{i}\" => {{\n                ::core::option::Option::Some(::hookwire::ToolSource::Function)"
                )),
                "{a}"
            );
        }
        assert!(a.contains(".with_agent(\"child\")"));
    }

    /// The tool set of `n` tools named `tool_0`...
    fn tools(n: usize) -> String {
        let mut spec = AgentSpec::new("few");
        for i in 0..n {
            spec = spec.with_function_tool(ToolRef::new(format!("T{i}"), format!("tool_{i}")));
        }
        emit(&spec)
    }

    #[test]
    fn a_few_tools_dispatch_through_a_match_on_the_name() {
        let code = tools(3);
        assert!(code.contains("match &*call.name {\n"), "{code}");
        assert!(code.contains("\"tool_2\" => {\n"), "{code}");
        // The tool set knows each tool's source.
        assert!(
            code.contains(
                r#""tool_1" => ::core::option::Option::Some(::hookwire::ToolSource::Function),"#
            ),
            "{code}"
        );
        assert!(!code.contains("__dispatch"), "{code}");
        assert!(!tools(MATCH_MAX).contains("__dispatch"));
        assert!(tools(MATCH_MAX + 1).contains("__dispatch::index"));
    }

    #[test]
    fn duplicate_tools_and_bad_paths_are_errors() {
        let spec = AgentSpec::new("a")
            .with_function_tool(ToolRef::new("A", "x"))
            .with_function_tool(ToolRef::new("B", "x"));
        let opts = EmitOptions::new(syn::parse_quote!(::hookwire));
        let err = agent(&spec, &opts).unwrap_err();
        assert!(err.to_string().contains("duplicate tool name `x`"));
        let spec = AgentSpec::new("a").with_function_tool(ToolRef::new("not a path", "x"));
        assert!(
            agent(&spec, &opts)
                .unwrap_err()
                .to_string()
                .contains("invalid tool type")
        );
    }
}
