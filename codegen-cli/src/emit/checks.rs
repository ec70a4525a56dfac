//! The type-level checks of an agent's generated code: that each tool is a
//! tool (`where` bounds), and that each typed hook runs only on tools with
//! its arguments (probes).

use super::mcp_types::McpTypes;
use super::*;
use crate::spec::MatchTarget;

/// The type-level checks of an agent, as `where` predicates spanned on the
/// user's paths: that each tool is a tool (the tool-set struct's field
/// types need it). Hooks and child agents are checked through their slots
/// instead (see [`slot_items`]).
#[derive(Default)]
pub(super) struct Checks {
    pub(super) tools: Vec<TokenStream>,
    /// That each typed hook runs only on tools with its arguments: one
    /// probe per hook and tool it is attached to, spanned on the hook's
    /// path (`hookwire::__private::check::ArgsProbe`; a hook that is not
    /// typed passes any).
    pub(super) typed: Vec<TokenStream>,
}

impl Checks {
    /// Checks that `hook`, attached to a tool whose arguments are
    /// `args_ty`, is not a typed hook for other arguments.
    pub(super) fn typed_on(&mut self, krate: &syn::Path, hook: &Hook, args_ty: &TokenStream) {
        self.typed.push(typed_probe(krate, hook, args_ty));
    }

    /// Checks that no agent-level hook that may run on tools found at run
    /// time (an agent with MCP servers, and a matcher that may select one
    /// of their tools) is a typed hook, but for the MCP tools a lock pins
    /// when those are all the tools found at run time (see
    /// [`locked_world`]): a typed hook may select those of them whose
    /// generated argument type (`mcp`) it takes.
    pub(super) fn typed_on_dynamic(
        &mut self,
        krate: &syn::Path,
        spec: &AgentSpec,
        hooks: &[Hook],
        mcp: Option<&McpTypes>,
    ) {
        if !has_dynamic_chain(spec) {
            return;
        }
        let tools = spec.static_tools();
        let known: Vec<&str> = tools.iter().map(|(name, _)| name.as_str()).collect();
        let locked = locked_world(spec).then(|| spec.locked_mcp_tools());
        for (r, hook) in spec.tool_hooks.iter().zip(hooks) {
            if selects_only_known(&r.matcher, &known) {
                continue;
            }
            let Some(locked) = &locked else {
                self.typed.push(json_probe(krate, hook));
                continue;
            };
            for (name, source, meta) in locked {
                let target = MatchTarget::new(name, *source).with_meta_if(meta.as_ref());
                if !r.matcher.matches(target) {
                    continue;
                }
                match mcp.and_then(|types| types.path_of(name)) {
                    Some(args_ty) => self.typed.push(typed_probe(krate, hook, &args_ty)),
                    None => self.typed.push(json_probe(krate, hook)),
                }
            }
        }
    }

    /// The probes, in a function that is never called (type-checked
    /// only).
    pub(super) fn typed_hooks(&self, krate: &syn::Path) -> TokenStream {
        typed_probes(krate, &self.typed)
    }

    /// The `where` clause of the agent's structs and impls.
    pub(super) fn where_clause(&self) -> TokenStream {
        let tools = &self.tools;
        quote!(where #(#tools,)*)
    }
}

/// Whether the tools an agent finds at run time are exactly the MCP tools
/// its lock pins: every server it names is in the lock, and it takes no
/// tool registered at run time. (A served tool that differs from the lock
/// never reaches a hook: the run leaves it out or stops.)
pub(crate) fn locked_world(spec: &AgentSpec) -> bool {
    spec.mcp_lock.is_some() && !spec.runtime_tools && spec.unlocked_servers().is_empty()
}

/// The check that `hook` is not a typed hook: it may run on tools whose
/// arguments are known only as JSON.
fn json_probe(krate: &syn::Path, hook: &Hook) -> TokenStream {
    probe(krate, hook, &quote!(()), "check_json_args")
}

/// The check that `hook`, attached to a tool whose arguments are
/// `args_ty`, is not a typed hook for other arguments, spanned on the
/// hook's path (see [`typed_probes`]).
pub(crate) fn typed_probe(krate: &syn::Path, hook: &Hook, args_ty: &TokenStream) -> TokenStream {
    probe(krate, hook, args_ty, "check_args")
}

/// One probe of `hook` with arguments `args_ty`, calling `check` (named on
/// the hook's span: rustc reports an unmet bound of a method there).
fn probe(krate: &syn::Path, hook: &Hook, args_ty: &TokenStream, check: &str) -> TokenStream {
    let user_ty = &hook.user_ty;
    let check = syn::Ident::new(check, hook.span);
    quote_spanned! {hook.span=>
        (&#krate::__private::check::ArgsProbe::<#user_ty, #args_ty>::NEW).#check();
    }
}

/// Probes (`hookwire::__private::check::ArgsProbe`) in a function that is
/// never called: type-checked only.
pub(crate) fn typed_probes(krate: &syn::Path, probes: &[TokenStream]) -> TokenStream {
    if probes.is_empty() {
        return quote!();
    }
    quote! {
        const _: () = {
            #[allow(dead_code, clippy::needless_borrow, clippy::too_many_lines)]
            fn __hookwire_typed_hooks() {
                // One of the two is unused where no hook is typed.
                #[allow(unused_imports)]
                use #krate::__private::check::{ProbeAny as _, ProbeTyped as _};
                #(#probes)*
            }
        };
    }
}

/// Whether `matcher` selects only tools among `known` (by name, or by a
/// source no tool found at run time has): then it never selects a tool
/// found at run time.
pub(crate) fn selects_only_known(matcher: &crate::spec::Matcher, known: &[&str]) -> bool {
    use crate::spec::Matcher;
    match matcher {
        Matcher::Exact(name) => known.contains(&name.as_str()),
        Matcher::Source(source) => matches!(source, ToolSource::Function | ToolSource::Agent),
        Matcher::Any(ms) => ms.iter().all(|m| selects_only_known(m, known)),
        Matcher::All(ms) => ms.iter().any(|m| selects_only_known(m, known)),
        _ => false,
    }
}
