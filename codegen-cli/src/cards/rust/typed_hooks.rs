//! Typed hooks in a card: a hook that takes a tool's arguments as their
//! Rust type (`&mut ArgsOf<refund>`) runs only on that tool. Checked when
//! the cards load, at the hook's reference, so that `cardgen check` refuses
//! what would not compile.

use super::*;
use std::collections::BTreeMap;

use crate::lower::TypedArgs;
use crate::spec::{MatchTarget, ToolSource};

/// The tool a typed hook's argument type names: `X` of `ArgsOf<X>` (any
/// path to `ArgsOf`), `None` for another type.
fn args_of(ty: &syn::Type) -> Option<String> {
    match crate::lower::args_of_inner(ty)? {
        syn::Type::Path(tool) => tool
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string().trim_start_matches("r#").to_owned()),
        _ => None,
    }
}

/// The type's name if `ty` is a path (`super::super::clock::clock_mcp::TimeGetCurrentTime`
/// names `TimeGetCurrentTime`): how a typed hook names a locked MCP tool's
/// generated argument type.
fn type_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().map(|s| s.ident.to_string())
        }
        syn::Type::Reference(r) => type_ident(&r.elem),
        _ => None,
    }
}

/// A tool a typed hook may select, as the check sees it: its name and
/// source, what the hook must name to take its arguments (the function
/// behind a function tool, or a locked MCP tool's generated type), and its
/// metadata when known.
struct Selectable {
    name: String,
    source: ToolSource,
    function: Option<String>,
    mcp_type: Option<String>,
    meta: Option<crate::spec::ToolMeta>,
}

impl CardRefs<'_> {
    /// The tools a typed hook of the card may select: its static tools and,
    /// when the lock pins every tool it finds at run time (`locked_world`),
    /// the locked MCP tools with their generated argument types (`types`:
    /// the lock's, by tool).
    fn selectable(&self, locked_world: bool, types: &BTreeMap<String, String>) -> Vec<Selectable> {
        let p = self.p;
        let mut tools: Vec<Selectable> = Vec::new();
        let plain = |name: String, source, function| Selectable {
            name,
            source,
            function,
            mcp_type: None,
            meta: None,
        };
        for (idx, r) in p.tool_refs.iter().enumerate() {
            if let Some(slot) = self.tool_slot.get(&idx)
                && let Some(tool) = self.spec.function_tools.get(*slot)
            {
                tools.push(plain(
                    tool.name.clone(),
                    tool.source,
                    Some(r.function.clone()),
                ));
            }
        }
        for (name, source) in self.spec.static_tools() {
            if !tools.iter().any(|known| known.name == name) {
                tools.push(plain(name, source, None));
            }
        }
        if locked_world {
            for (name, source, meta) in self.spec.locked_mcp_tools() {
                let mcp_type = types.get(&name).cloned();
                tools.push(Selectable {
                    name,
                    source,
                    function: None,
                    mcp_type,
                    meta,
                });
            }
        }
        tools
    }

    /// Checks each typed hook of the card against the tools its matcher
    /// selects: each must be the function its type names, or the locked
    /// MCP tool whose generated type it is, and no other tool found at run
    /// time may be selected.
    pub(super) fn check_typed_hooks(&mut self, typed: &[(usize, TypedArgs)]) {
        if typed.is_empty() {
            return;
        }
        let p = self.p;
        let locked_world = crate::emit::locked_world(&self.spec);
        // The lock's generated argument types, by tool (typify runs once).
        let types = crate::emit::mcp_typed_tools(&self.spec);
        let tools = self.selectable(locked_world, &types);
        for (idx, args) in typed {
            let (Some(hook), Some(r)) = (self.spec.tool_hooks.get(*idx), p.hook_refs.get(*idx))
            else {
                continue;
            };
            let wanted = args_of(&args.ty);
            let named = type_ident(&args.ty);
            let shown = crate::lower::show_type(&args.ty);
            let name = &r.function;
            let mut wrong: Vec<&str> = Vec::new();
            let mut takes_mcp: Option<&str> = None;
            for tool in &tools {
                let target =
                    MatchTarget::new(&tool.name, tool.source).with_meta_if(tool.meta.as_ref());
                if !hook.matcher.matches(target) {
                    continue;
                }
                let fits = match (&tool.function, &tool.mcp_type) {
                    (Some(function), _) => wanted.as_ref() == Some(function),
                    (None, Some(ty)) => wanted.is_none() && named.as_ref() == Some(ty),
                    (None, None) => false,
                };
                if fits && tool.mcp_type.is_some() {
                    takes_mcp = Some(&tool.name);
                }
                if !fits {
                    wrong.push(&tool.name);
                }
            }
            let at = |message: String| p.src.at(&r.path(), true, message);
            if !wrong.is_empty() {
                let own = wanted.as_deref().or(takes_mcp);
                let takes = match own {
                    Some(tool) => format!("the arguments of `{tool}` (`{shown}`)"),
                    None if locked_world => format!("`{shown}`, which are no tool's arguments"),
                    None => format!("`{shown}`, which are no function tool's arguments"),
                };
                let help = match own {
                    Some(tool) => format!(
                        "give it `match: {tool}`, or take `args: &mut ToolArgs` to read any tool's arguments as JSON"
                    ),
                    None if locked_world => format!(
                        "take `&mut ArgsOf<tool>` for the function tool it guards, or a locked MCP tool's generated type (`&mut super::super::{}::<Type>` in a card's Rust file), or `args: &mut ToolArgs` to read any tool's arguments as JSON",
                        crate::cards::build::MCP_TYPES_MODULE
                    ),
                    None => "take `&mut ArgsOf<tool>` for the function tool it guards, or `args: &mut ToolArgs` to read any tool's arguments as JSON".to_owned(),
                };
                self.diags.push(
                    at(format!(
                        "typed hook `{name}` takes {takes}, but its match also selects {}, whose arguments are another type",
                        wrong
                            .iter()
                            .map(|tool| format!("`{tool}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .help(help),
                );
            } else if self.spec.has_run_time_tools()
                && !locked_world
                && !crate::emit::selects_only_known(
                    &hook.matcher,
                    &tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
                )
            {
                self.diags.push(
                    at(format!(
                        "typed hook `{name}` takes `{shown}`, but its match may select tools found at run time (an MCP server's, or registered ones), whose arguments are JSON"
                    ))
                    .help(if named.as_ref().is_some_and(|n| types.values().any(|t| t == n)) {
                        "a locked MCP tool's argument type needs every tool the agent finds at run time pinned: every server of the card in `hookwire.lock` and no `runtime_tools`; or take `args: &mut ToolArgs`"
                    } else if self.spec.runtime_tools || self.spec.servers.is_empty() {
                        "give it a `match` that names only the tools with its arguments, or take `args: &mut ToolArgs`"
                    } else {
                        "give it a `match` that names only the tools with its arguments, or take `args: &mut ToolArgs`; with every server of the card pinned by `hookwire.lock` (`cardgen mcp lock`), it can take a locked MCP tool's generated argument type"
                    }),
                );
            }
        }
    }
}
