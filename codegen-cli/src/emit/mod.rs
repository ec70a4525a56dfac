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
//!     "::hookwire::Hooked<\n        ::hookwire::__private::slot::Slotted<__HookwireCalcHook0_Audit>,\n        <AddOne as ::hookwire::declare::ToolDecl>::Handler,"
//! ));
//! ```

mod agent_items;
mod agent_tools;
mod checks;
mod config;
mod dispatch;
mod hooks;
mod mcp_types;
mod policy;
mod settings;
mod slots;
mod tokens;
mod tool_set;
mod tools;

use std::collections::HashSet;

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use agent_items::AgentItems;
use agent_tools::{AgentTools, ToolLowering};
use checks::*;
pub(crate) use checks::{locked_world, selects_only_known, typed_probe, typed_probes};
use config::*;
use dispatch::*;
pub(crate) use hooks::lower_hook;
use hooks::*;
pub use mcp_types::mcp_types_module;
pub(crate) use mcp_types::typed_tools as mcp_typed_tools;
pub(crate) use policy::{approval_tokens, hook_tokens};
use settings::setting_calls;
use slots::*;
use tokens::*;
pub(crate) use tokens::{bound, parse_path_at, ref_type};
use tool_set::*;
use tools::*;
pub(crate) use tools::{OWN_SEGMENT, boxed};

use crate::spec::dispatch::PerfectHash;
use crate::spec::{
    AgentSpec, ChainHook, FailurePolicy, HookKind, HookRef, MetaFormula, ToolRef, ToolSource,
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
    /// Where the argument types of the lock's MCP tools are (cards:
    /// `super::mcp_types`, the module [`mcp_types_module`] makes once for a
    /// card set); `None` declares them beside the agent, in `<agent>_mcp`.
    pub mcp_types_in: Option<syn::Path>,
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
            mcp_types_in: None,
        }
    }

    /// Names the lock's MCP argument types under `path` instead of
    /// declaring them beside the agent (see
    /// [`mcp_types_in`](Self::mcp_types_in)).
    pub fn mcp_types_in(mut self, path: syn::Path) -> Self {
        self.mcp_types_in = Some(path);
        self
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

/// `PmoOrchestrator` as `pmo_orchestrator`: a type name as a module's.
pub(crate) fn snake_case(pascal: &str) -> String {
    let mut out = String::new();
    for (i, c) in pascal.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
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
/// builds it (shared with the `#[tool(tool_hooks = [..])]` lowering).
#[derive(Clone)]
pub(crate) struct Hook {
    pub(crate) ty: syn::Type,
    pub(crate) init: TokenStream,
    /// Its slot: the marker type and its impls, declared once.
    pub(crate) items: TokenStream,
    /// The user's type (through its slot), and where it is written: what
    /// the check that a typed hook runs only on its own arguments names
    /// (see [`Checks::typed`]).
    pub(crate) user_ty: syn::Type,
    pub(crate) span: Span,
    /// What the policy reads from its type in the chain.
    pub(crate) facts: HookFacts,
}

/// What an agent's policy reads from a hook's type in the chain, as
/// constant expressions (the compiler decides them: the macro does not see
/// the hook's signature): whether it may rewrite the arguments
/// (`Hook::REWRITES`) and its phase (`Hook::PHASE`).
#[derive(Debug, Clone)]
pub(crate) struct HookFacts {
    pub(crate) rewrites: TokenStream,
    pub(crate) phase: TokenStream,
}

/// Emits the tool set and the `Agent` impl of `spec`.
///
/// Errors (spanned on the offending reference when the spec carries spans):
/// a type path or init expression that does not parse, two tools with the
/// same name, a number that does not fit `usize`, a name that gives no
/// Rust type name.
pub fn agent(spec: &AgentSpec, opts: &EmitOptions) -> syn::Result<TokenStream> {
    let krate = &opts.crate_path;
    let agent_ty = agent_type(spec, opts)?;
    let tools_ty = opts
        .tools_type
        .clone()
        .unwrap_or_else(|| format_ident!("{}Tools", agent_ty));
    let deps_ty: syn::Type = match &spec.deps {
        Some(text) => {
            let path = parse_path_at(text, "dependency type", &spec.span)?;
            syn::parse_quote!(#path)
        }
        None => syn::parse_quote!(()),
    };
    check_spec(spec)?;

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
    let AgentTools {
        lowered,
        name_checks,
        child_items,
    } = ToolLowering {
        krate,
        spec,
        agent_ty: &agent_ty,
        deps_ty: &deps_ty,
        agent_hooks: &agent_hooks,
    }
    .lower(&mut checks)?;

    let matchers = RuntimeMatchers::new(krate, spec);
    let (lifecycle, lifecycle_slots) = emit_lifecycle(krate, spec, &agent_ty, &matchers)?;
    let bounds = checks.where_clause();
    let parts = ToolSetParts {
        ty: &tools_ty,
        deps_ty: &deps_ty,
        tools: &lowered,
        agent_hooks: &agent_hooks,
    };
    let tools_struct = emit_tools(krate, spec, &opts.vis, &parts, &checks)?;
    let config = emit_config(krate, spec)?;
    let items = AgentItems {
        krate,
        spec,
        opts,
        agent_ty: &agent_ty,
        tools_ty: &tools_ty,
        deps_ty: &deps_ty,
        bounds: &bounds,
    };
    let declare = items.declaration();
    let constructor = items.constructor(&config);
    let from_deps = items.deps_impls();
    let debug = items.debug_impl();
    let (policy, policy_fn) = policy::policy_items(krate, spec, &lowered, &agent_hooks);
    let coverage = policy::coverage_checks(krate, spec, &agent_ty);
    let mcp = mcp_types::mcp_types(krate, spec, &agent_ty, opts);
    checks.typed_on_dynamic(krate, spec, &agent_hooks, mcp.as_ref());
    let mcp = mcp.map(|types| types.item);
    let typed_hooks = checks.typed_hooks(krate);
    let agent_impl = items.agent_impl(
        &[
            emit_call_dynamic(krate, spec, &matchers),
            emit_hooks_selecting_none(krate, spec, &matchers),
            emit_hooks_for(krate, spec, &lowered),
            lifecycle,
        ],
        &policy,
    );
    let dynamic_hooks = emit_dynamic_hooks(krate, spec, &matchers);
    let matchers = matchers.item(krate);
    let typed = items.typed_impl()?;

    Ok(quote! {
        #declare
        #tools_struct
        #lifecycle_slots
        #typed

        impl #agent_ty #bounds {
            #constructor

            #matchers

            #dynamic_hooks

            #policy_fn
        }

        #from_deps

        #debug

        #agent_impl

        #(#child_items)*

        #(#name_checks)*

        #coverage

        #typed_hooks

        #mcp
    })
}

/// The type that gets `impl Agent`: the options', or the PascalCase form
/// of the agent's name, spanned on the agent.
fn agent_type(spec: &AgentSpec, opts: &EmitOptions) -> syn::Result<syn::Ident> {
    if let Some(ident) = &opts.agent_type {
        return Ok(ident.clone());
    }
    let agent_span = span_of(&spec.span);
    let name = type_name_for(&spec.name).ok_or_else(|| {
        syn::Error::new(
            agent_span,
            format!("agent name `{}` gives no Rust type name", spec.name),
        )
    })?;
    Ok(syn::Ident::new(&name, agent_span))
}

/// The spec's own rules (`AgentSpec::validate`: a hook whose matcher
/// selects no tool would be dropped from every chain without a word, a
/// tool name given twice, numbers that must be positive, ...): each an
/// error on the entry it is about.
fn check_spec(spec: &AgentSpec) -> syn::Result<()> {
    let mut invalid: Option<syn::Error> = None;
    for error in spec.validate() {
        let error_here = syn::Error::new(field_span(spec, error.field), &error.message);
        match &mut invalid {
            Some(all) => all.combine(error_here),
            None => invalid = Some(error_here),
        }
    }
    match invalid {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;

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
    let mut rules = quote::quote!(#krate::view::StepRules::new());
    if let Some(f) = available {
        let path = fn_path(f, "availability rule")?;
        items.extend(quote::quote! {
            fn available(step: &#krate::view::StepView<'_>) -> bool {
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
                step: &#krate::view::StepView<'_>,
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
