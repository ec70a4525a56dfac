//! Typed hooks in a card: a hook that takes a tool's arguments as their
//! Rust type (`&mut ArgsOf<refund>`) runs only on that tool. Checked when
//! the cards load, at the hook's reference, so that `cardgen check` refuses
//! what would not compile.

use super::*;
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

impl CardRefs<'_> {
    /// Checks each typed hook of the card against the tools its matcher
    /// selects: each must be the function its type names, and no tool
    /// found at run time may be selected.
    pub(super) fn check_typed_hooks(&mut self, typed: &[(usize, TypedArgs)]) {
        let p = self.p;
        // (tool name, source, the function behind it).
        let mut tools: Vec<(String, ToolSource, Option<String>)> = Vec::new();
        for (idx, r) in p.tool_refs.iter().enumerate() {
            if let Some(slot) = self.tool_slot.get(&idx)
                && let Some(tool) = self.spec.function_tools.get(*slot)
            {
                tools.push((tool.name.clone(), tool.source, Some(r.function.clone())));
            }
        }
        for (name, source) in self.spec.static_tools() {
            if !tools.iter().any(|(known, ..)| *known == name) {
                tools.push((name, source, None));
            }
        }
        for (idx, args) in typed {
            let (Some(hook), Some(r)) = (self.spec.tool_hooks.get(*idx), p.hook_refs.get(*idx))
            else {
                continue;
            };
            let wanted = args_of(&args.ty);
            let shown = crate::lower::show_type(&args.ty);
            let name = &r.function;
            let mut wrong: Vec<&str> = Vec::new();
            for (tool, source, function) in &tools {
                let selected = hook.matcher.matches(MatchTarget::new(tool, *source));
                if selected && (wanted.is_none() || *function != wanted) {
                    wrong.push(tool);
                }
            }
            let at = |message: String| p.src.at(&r.path(), true, message);
            if !wrong.is_empty() {
                let takes = match &wanted {
                    Some(tool) => format!("the arguments of `{tool}` (`{shown}`)"),
                    None => format!("`{shown}`, which are no function tool's arguments"),
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
                    .help(match &wanted {
                        Some(tool) => format!(
                            "give it `match: {tool}`, or take `args: &mut ToolArgs` to read any tool's arguments as JSON"
                        ),
                        None => "take `&mut ArgsOf<tool>` for the function tool it guards, or `args: &mut ToolArgs` to read any tool's arguments as JSON".to_owned(),
                    }),
                );
            } else if self.spec.has_run_time_tools()
                && !crate::emit::selects_only_known(
                    &hook.matcher,
                    &tools.iter().map(|(t, ..)| t.as_str()).collect::<Vec<_>>(),
                )
            {
                self.diags.push(
                    at(format!(
                        "typed hook `{name}` takes `{shown}`, but its match may select tools found at run time (an MCP server's, or registered ones), whose arguments are JSON"
                    ))
                    .help("give it a `match` that names only the tools with its arguments, or take `args: &mut ToolArgs`"),
                );
            }
        }
    }
}
