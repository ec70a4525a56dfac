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
//! * `impl Agent` for the agent type, whose `config()` carries every
//!   other field;
//! * one slot per listed hook (`hookwire::__private::slot`): a marker type
//!   whose impls name the user's type, build it, and check that it is a
//!   hook of its kind, spanned on the reference when the front end has a
//!   span. Chains hold `Slotted<Marker>`, so nothing else asks anything of
//!   the hook's type: a path that is not a hook is one error, there, and
//!   the code that builds and runs the agent adds none;
//!   A child agent gets a slot too (`AgentSlot`), and the parent's tool is
//!   an `AgentTool<Child<Marker>>`;
//! * type-level checks of tools: `where` bounds on the generated struct and
//!   impls (`Path: ToolDecl`) that turn a path that is not a tool into one
//!   `#[diagnostic::on_unimplemented]` sentence on the reference (the
//!   bodies assume the bounds, so they add no error of their own);
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
//! // The hook is held through its slot, which names `Audit`.
//! assert!(code.contains("type Hook = Audit;"));
//! assert!(code.contains(
//!     "::hookwire::Hooked<\n        ::hookwire::__private::slot::Slotted<__HookwireCalcHook0_Audit>,\n        <AddOne as ::hookwire::ToolDecl>::Handler,"
//! ));
//! ```

mod config;
mod hooks;
mod tokens;
mod tools;

use std::collections::HashSet;

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use config::*;
pub(crate) use hooks::lower_hook;
use hooks::*;
use tokens::*;
pub(crate) use tokens::{bound, parse_path_at, ref_type};
use tools::*;
pub(crate) use tools::{OWN_SEGMENT, boxed};

use crate::spec::dispatch::PerfectHash;
use crate::spec::{
    AgentSpec, ChainHook, FailurePolicy, HistoryMergeTarget, HistorySource, HookKind, HookRef,
    MetaFormula, ToolRef, ToolSource,
};

/// How to emit an agent.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EmitOptions {
    /// The path of the `hookwire` crate in the generated code (`::hookwire`,
    /// or what `proc-macro-crate` resolved for a renamed dependency).
    pub crate_path: syn::Path,
    /// The type that gets `impl Agent`; `None` means the PascalCase
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

/// A hook reference lowered to its type in a chain and the expression that
/// builds it (shared with the `#[tool(hooks = [..])]` lowering).
#[derive(Clone)]
pub(crate) struct Hook {
    pub(crate) ty: syn::Type,
    pub(crate) init: TokenStream,
    /// Its slot: the marker type and its impls, declared once.
    pub(crate) items: TokenStream,
}

/// Emits the tool set and the `Agent` impl of `spec`.
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

    // The spec's own rules (`AgentSpec::validate`: a hook whose matcher
    // selects no tool would be dropped from every chain without a word, a
    // tool name given twice, numbers that must be positive, ...): each an
    // error on the entry it is about.
    let mut invalid: Option<syn::Error> = None;
    for error in spec.validate() {
        let error_here = syn::Error::new(field_span(spec, error.field), &error.message);
        match &mut invalid {
            Some(all) => all.combine(error_here),
            None => invalid = Some(error_here),
        }
    }
    if let Some(error) = invalid {
        return Err(error);
    }

    // Type-level checks of tools as `where` bounds on the generated structs
    // and impls, each spanned on the path the user wrote: a path that is not
    // a tool is an error on that path, and the impls' bodies (which assume
    // the bounds) add none. Hooks and children are checked through their
    // slots (`slot_items`), which add no bound anywhere.
    let mut checks = Checks::default();
    // Agent-level hooks are lowered once (and so checked even if they match
    // no static tool), then reused in every chain they are part of.
    let agent_hooks = spec
        .tool_hooks
        .iter()
        .enumerate()
        .map(|(i, h)| {
            lower_hook(
                krate,
                h,
                Some(&deps_ty),
                &format!("__Hookwire{agent_ty}Hook{i}"),
                None,
            )
        })
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
        let at = ToolAt {
            agent_ty: &agent_ty,
            index: lowered.len(),
            deps_ty: &deps_ty,
        };
        lowered.push(lower_tool(
            krate,
            spec,
            &agent_hooks,
            tool,
            at,
            None,
            &mut checks,
        )?);
    }
    // The name a function tool is listed under must be the one it is
    // declared with (`#[tool(name = "..")]`): checked at compile time.
    let mut name_checks: Vec<TokenStream> = spec
        .function_tools
        .iter()
        .zip(&lowered)
        .filter(|(tool, _)| tool.source != ToolSource::Agent)
        .map(|(tool, lowered)| {
            let ty = &lowered.tool_ty;
            let used = tool.name.as_str();
            let path_text = ty.to_string().replace(' ', "");
            bound(
                span_of(&tool.span),
                quote! {
                    const _: () = #krate::__private::function_tool_name(
                        <<#ty as #krate::ToolDecl>::Tool as #krate::Tool>::DECLARED_NAME,
                        #used,
                        #path_text,
                    );
                },
            )
        })
        .collect();
    name_checks.extend(meta_checks(krate, spec, &lowered));
    let mut child_items = Vec::new();
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
        let marker = marker_ident(
            &format!("__Hookwire{agent_ty}Agent{}", child_items.len()),
            &ty,
        );
        child_items.push(slot_items(
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
        ));
        // The tool name the parent uses must be the child's own
        // (`agent__<declared name>`): checked at compile time.
        let used = child.name.as_str();
        let path_text = quote!(#ty).to_string().replace(' ', "");
        name_checks.push(bound(
            span,
            quote! {
                const _: () = #krate::__private::child_agent_name(
                    <#marker as #slot::AgentSlot>::NAME,
                    #used,
                    #path_text,
                );
            },
        ));
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
        let at = ToolAt {
            agent_ty: &agent_ty,
            index: lowered.len(),
            deps_ty: &deps_ty,
        };
        lowered.push(lower_tool(
            krate,
            spec,
            &agent_hooks,
            &tool,
            at,
            Some(typed),
            &mut checks,
        )?);
    }

    let matchers = RuntimeMatchers::new(krate, spec);
    let (lifecycle, lifecycle_slots) = emit_lifecycle(krate, spec, &agent_ty, &matchers)?;
    let bounds = checks.where_clause();
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
    // The agent is a value: it owns its tool set (each tool behind its
    // chain, child agents built once) and its configuration. Nothing of it
    // lives in a `static`.
    let declare = quote! {
        #attrs
        #vis struct #agent_ty #bounds {
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

    let call_dynamic = emit_call_dynamic(krate, spec, &matchers);
    let selecting_none = emit_hooks_selecting_none(krate, spec, &matchers);
    let hooks_for = emit_hooks_for(krate, spec, &lowered);
    let dynamic_hooks = emit_dynamic_hooks(krate, spec, &matchers);
    let matchers = matchers.item(krate);
    let agent_name_lit = str_lit(agent_name);
    let durable_name = str_lit(
        &spec
            .durable_name
            .clone()
            .unwrap_or_else(|| crate::spec::derived_durable_name(agent_name)),
    );

    // An agent with an output type answers `Runner::run_output` with it.
    let typed = match &spec.output_type {
        Some(ty) => {
            let path = fn_path(ty, "output type")?;
            let at = ty.span.unwrap_or_else(Span::call_site);
            quote::quote_spanned! {at=>
                impl #krate::agent::TypedAgent for #agent_ty #bounds {
                    type Output = #path;
                }
            }
        }
        None => quote!(),
    };

    Ok(quote! {
        #declare
        #tools_struct
        #lifecycle_slots
        #typed

        impl #agent_ty #bounds {
            #constructor

            #matchers

            #dynamic_hooks
        }

        #from_deps

        #debug

        impl #krate::agent::Agent for #agent_ty #bounds {
            type Tools = #tools_ty;

            const DURABLE_NAME: #krate::agent::DurableName =
                #krate::agent::DurableName::new(#durable_name);

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

        impl #krate::declare::GeneratedAgent for #agent_ty #bounds {
            const NAME: &'static str = #agent_name_lit;
        }

        #(#child_items)*

        #(#name_checks)*
    })
}

#[cfg(test)]
mod tests;

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

/// The path of a function an entry names, as the front end's tokens, or
/// parsed from its text at its span.
fn fn_path(f: &crate::spec::FnRef, what: &str) -> syn::Result<syn::Path> {
    let span = f.span.unwrap_or_else(Span::call_site);
    let parsed = match &f.tokens {
        Some(tokens) => syn::parse2::<syn::Path>(tokens.clone()),
        None => syn::parse_str::<syn::Path>(&f.path),
    };
    parsed.map_err(|e| syn::Error::new(span, format!("invalid {what} path `{}`: {e}", f.path)))
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

/// The `StepRules` an entry declares (`available`, `instruction`), as an
/// expression, `None` when it declares neither. Each function is called
/// through `available_by` / `instruction_by`, whose bound (spanned on the
/// path) is the one check of its signature.
pub(super) fn step_rules(
    krate: &syn::Path,
    available: &Option<crate::spec::FnRef>,
    instruction: &Option<crate::spec::InstructionRef>,
) -> syn::Result<Option<TokenStream>> {
    if available.is_none() && instruction.is_none() {
        return Ok(None);
    }
    let mut items = TokenStream::new();
    let mut rules = quote::quote!(#krate::StepRules::new());
    if let Some(f) = available {
        let path = fn_path(f, "availability rule")?;
        items.extend(quote::quote! {
            fn available(step: &#krate::StepView<'_>) -> bool {
                #krate::declare::available_by(#path, step)
            }
        });
        rules.extend(quote::quote!(.with_available(available)));
    }
    let body = match instruction {
        None => None,
        Some(crate::spec::InstructionRef::Text(text)) => {
            let text = str_lit(text);
            Some(quote::quote! {
                let _ = step;
                ::core::option::Option::Some(::std::borrow::Cow::Borrowed(#text))
            })
        }
        Some(crate::spec::InstructionRef::Fn(f)) => {
            let path = fn_path(f, "instruction")?;
            Some(quote::quote!(#krate::declare::instruction_by(#path, step)))
        }
    };
    if let Some(body) = body {
        items.extend(quote::quote! {
            fn instruction(
                step: &#krate::StepView<'_>,
            ) -> ::core::option::Option<::std::borrow::Cow<'static, str>> {
                #body
            }
        });
        rules.extend(quote::quote!(.with_instruction(instruction)));
    }
    Ok(Some(quote::quote!({
        #items
        #rules
    })))
}
