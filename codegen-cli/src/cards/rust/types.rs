//! Checks on referenced types: lifecycle hooks, `deps:`, `#[cfg]`d items,
//! and the tools and servers of `kind: tool_call` injections.

use super::*;

/// Why a reference does not resolve: an error at the card's reference
/// (message, help), or one in the Rust file.
pub(super) enum Check {
    InCard(String, Option<String>),
    InFile(Box<Diagnostic>),
}

/// A top-level type a card names as `file.rs:Type` (a lifecycle hook, or
/// the agent's dependencies): a `struct`, `enum` or `type` alias of its
/// file that is `pub` (the card's module names it), not generic (it is
/// named without parameters) and not behind a `cfg`. `what` names it in
/// messages (`lifecycle hook`, `dependency type`); `fn_help` is the help
/// for a reference that names a function instead.
pub(super) fn find_type<'f>(
    file: &'f RsFile,
    r: &RefSpec,
    what: &str,
    fn_help: &str,
    referenced: &str,
) -> Result<FoundType<'f>, Check> {
    let name = r.function.as_str();
    let found = file.ast.items.iter().find_map(|item| match item {
        syn::Item::Struct(s) if s.ident == name => {
            Some((&s.vis, &s.ident, &s.generics, Some(&s.attrs), "struct"))
        }
        syn::Item::Enum(e) if e.ident == name => {
            Some((&e.vis, &e.ident, &e.generics, Some(&e.attrs), "enum"))
        }
        syn::Item::Type(t) if t.ident == name => {
            Some((&t.vis, &t.ident, &t.generics, None, "type"))
        }
        _ => None,
    });
    let Some((vis, ident, generics, attrs, keyword)) = found else {
        let is_fn = file
            .ast
            .items
            .iter()
            .any(|i| matches!(i, syn::Item::Fn(f) if f.sig.ident == name));
        if is_fn {
            return Err(Check::InCard(
                format!("`{name}` in `{}` is a function, not a type", r.file),
                Some(fn_help.to_owned()),
            ));
        }
        let types: Vec<String> = file
            .ast
            .items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Struct(s) => Some(s.ident.to_string()),
                syn::Item::Enum(e) => Some(e.ident.to_string()),
                syn::Item::Type(t) => Some(t.ident.to_string()),
                _ => None,
            })
            .collect();
        let help = did_you_mean(name, types.iter().map(String::as_str))
            .map(|s| format!("did you mean `{}:{s}`?", r.file))
            .unwrap_or_else(|| {
                if types.is_empty() {
                    format!(
                        "`{}` defines no top-level struct, enum or type alias",
                        r.file
                    )
                } else {
                    format!("top-level types in `{}`: {}", r.file, types.join(", "))
                }
            });
        return Err(Check::InCard(
            format!(
                "no top-level struct, enum or type alias `{name}` in `{}`",
                r.file
            ),
            Some(help),
        ));
    };
    if let Some(d) = not_public(file, vis, ident, what, keyword) {
        return Err(Check::InFile(Box::new(d.note(referenced.to_owned()))));
    }
    if let Some(d) = conditional(file, attrs.map_or(&[][..], Vec::as_slice), ident, what) {
        return Err(Check::InFile(Box::new(d.note(referenced.to_owned()))));
    }
    if !generics.params.is_empty() {
        return Err(Check::InFile(Box::new(
            file.diag_at(
                ident.span(),
                ident.span(),
                format!("{what} `{name}` is generic, but a card names it without parameters"),
            )
            .help(format!(
                "add a type alias with the parameters filled in, for example `pub type My{name} = {name}<...>;`, and reference that"
            ))
            .note(referenced.to_owned()),
        )));
    }
    Ok(FoundType { ident, attrs })
}

/// A type [`find_type`] found.
pub(super) struct FoundType<'f> {
    /// Its name, where it is declared.
    pub(super) ident: &'f syn::Ident,
    /// Its attributes; `None` for a type alias (taken as it is: the
    /// compiler checks what it stands for).
    pub(super) attrs: Option<&'f Vec<syn::Attribute>>,
}

/// Whether `attrs` hold `#[derive(.., Trait, ..)]` (by the last segment).
pub(super) fn derives(attrs: &[syn::Attribute], trait_name: &str) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|paths| paths.iter().any(|p| last_is(p, trait_name)))
    })
}

/// A lifecycle hook `file.rs:Type` must name a type [`find_type`] accepts.
/// The generated code builds it with `Default::default()`, as
/// `#[agent(hooks = [..])]` does, so a struct or enum must derive or
/// implement `Default` in that file, and implement `LifecycleHooks` there.
/// A type alias is taken as it is: the compiler checks what it stands for
/// (the generated code carries a type-level check that names the trait).
pub(super) fn check_lifecycle_type(
    file: &RsFile,
    r: &RefSpec,
    referenced: &str,
) -> Result<(), Check> {
    let name = r.function.as_str();
    let FoundType { ident, attrs } = find_type(
        file,
        r,
        "lifecycle hook",
        "a lifecycle hook is a type that implements `hookwire::agent::lifecycle::LifecycleHooks`; functions go in `function_tools` or `tool_hooks`",
        referenced,
    )?;
    let in_file = |message: String, help: String| {
        Err(Check::InFile(Box::new(
            file.diag_at(ident.span(), ident.span(), message)
                .help(help)
                .note(referenced.to_owned()),
        )))
    };
    let Some(attrs) = attrs else {
        return Ok(());
    };
    if !derives(attrs, "Default") && !implements(file, name, "Default") {
        return in_file(
            format!(
                "lifecycle hook `{name}` cannot be built: the generated code calls `Default::default()`, but `{name}` neither derives nor implements `Default` in `{}`",
                r.file
            ),
            format!("add `#[derive(Default)]` to `{name}`"),
        );
    }
    if let Some(why) = foreign_lifecycle_trait(file, name) {
        return in_file(
            format!("`{name}` implements a `LifecycleHooks` that is not hookwire's: {why}"),
            format!(
                "write `impl hookwire::agent::lifecycle::LifecycleHooks for {name} {{ ... }}`, or rename the other trait"
            ),
        );
    }
    if !implements(file, name, "LifecycleHooks") {
        return in_file(
            format!(
                "`{name}` does not implement `LifecycleHooks` in `{}`",
                r.file
            ),
            format!(
                "add `impl hookwire::agent::lifecycle::LifecycleHooks for {name} {{ ... }}` next to it (every method has a default)"
            ),
        );
    }
    Ok(())
}

/// An error unless `vis` is plain `pub`: the generated code names the
/// item from a module of its own (`pub(crate)` would do there, but not in
/// the public type aliases it makes; `pub(self)`, `pub(super)` and
/// `pub(in ..)` would not), so only `pub` is sure to compile.
pub(super) fn not_public(
    file: &RsFile,
    vis: &syn::Visibility,
    ident: &syn::Ident,
    what: &str,
    keyword: &str,
) -> Option<Diagnostic> {
    let how = match vis {
        syn::Visibility::Public(_) => return None,
        syn::Visibility::Inherited => "private".to_owned(),
        syn::Visibility::Restricted(r) => {
            let v = quote::quote!(#r).to_string().replace(' ', "");
            format!("only `{v}`")
        }
    };
    Some(
        file.diag_at(
            ident.span(),
            ident.span(),
            format!(
                "{what} `{ident}` is {how}, but the code generated for the card names it from another module"
            ),
        )
        .help(format!("declare it `pub {keyword} {ident}`")),
    )
}

/// The first `#[cfg(..)]` (or `#[cfg_attr(.., cfg(..))]`) of `attrs`.
pub(crate) fn cfg_of(attrs: &[syn::Attribute]) -> Option<&syn::Attribute> {
    attrs.iter().find(|a| {
        a.path().is_ident("cfg")
            || a.path().is_ident("cfg_attr")
                && quote::quote!(#a).into_iter().any(|t| mentions_cfg(&t))
    })
}

pub(super) fn mentions_cfg(t: &proc_macro2::TokenTree) -> bool {
    match t {
        proc_macro2::TokenTree::Group(g) => {
            let mut inner = g.stream().into_iter();
            // Skip the leading `cfg_attr` itself.
            let first = inner.next();
            first.as_ref().is_some_and(|f| {
                !matches!(f, proc_macro2::TokenTree::Ident(i) if i == "cfg_attr") && mentions_cfg(f)
            }) || inner.any(|t| mentions_cfg(&t))
        }
        proc_macro2::TokenTree::Ident(i) => i == "cfg",
        _ => false,
    }
}

/// An error if the item (or its whole file, `#![cfg(..)]`) exists only
/// under a `cfg`: the card would name something the compiler may drop.
pub(super) fn conditional(
    file: &RsFile,
    attrs: &[syn::Attribute],
    ident: &syn::Ident,
    what: &str,
) -> Option<Diagnostic> {
    let (attr, whose) = match cfg_of(attrs) {
        Some(a) => (a, format!("{what} `{ident}` is")),
        None => (
            cfg_of(&file.ast.attrs)?,
            format!("the file of {what} `{ident}` is"),
        ),
    };
    let span = syn::spanned::Spanned::span(attr);
    Some(
        file.diag_at(
            span,
            ident.span(),
            format!("{whose} behind `#[cfg(..)]`, but the code generated for the card names it unconditionally"),
        )
        .help("remove the `cfg`, or reference an item that always exists"),
    )
}

/// Each `kind: tool_call` hook must call a tool the agent has: one of its
/// function tools or child agents (`agent__<name>`), or, with
/// `toolset_name:`, a tool of one of its MCP servers.
pub(super) fn check_injections(
    p: &Parsed,
    spec: &crate::spec::AgentSpec,
    tool_names: &HashMap<String, usize>,
    diags: &mut Vec<Diagnostic>,
) {
    use crate::spec::EventHookAction;
    use crate::yaml::Seg;
    let servers: Vec<&str> = spec
        .servers
        .iter()
        .map(String::as_str)
        .chain(spec.mcp_tools.iter().map(|t| t.server.as_str()))
        .collect();
    for (hook, &i) in spec.hooks.iter().zip(&p.event_hook_index) {
        let EventHookAction::ToolCall(call) = &hook.action else {
            continue;
        };
        let at = |field: &'static str| [Seg::Key("hooks"), Seg::Index(i), Seg::Key(field)];
        match &call.toolset_name {
            Some(toolset) if !servers.contains(&toolset.as_str()) => diags.push(
                p.src
                    .at(
                        &at("toolset_name"),
                        true,
                        format!(
                            "`toolset_name: {toolset}` is not a server of agent `{}`",
                            spec.name
                        ),
                    )
                    .maybe_help(
                        did_you_mean(toolset, servers.iter().copied())
                            .map(|s| crate::spec::suggestion_help(toolset, s)),
                    )
                    .note(if servers.is_empty() {
                        "the agent has no `servers:`".to_owned()
                    } else {
                        format!("its servers: {}", servers.join(", "))
                    }),
            ),
            Some(_) => {}
            None => {
                let name = call.tool_name.as_str();
                // An MCP tool by its full name: `<server>__<tool>`.
                let known = tool_names.contains_key(name)
                    || spec.agents.iter().any(|a| a.tool_name() == name)
                    || servers.iter().any(|s| {
                        name.strip_prefix(s)
                            .and_then(|rest| rest.strip_prefix(crate::spec::SERVER_SEPARATOR))
                            .is_some_and(|tool| !tool.is_empty())
                    });
                if !known {
                    let tools: Vec<String> = tool_names
                        .keys()
                        .cloned()
                        .chain(spec.agents.iter().map(|a| a.tool_name()))
                        .collect();
                    let mut sorted: Vec<&str> = tools.iter().map(String::as_str).collect();
                    sorted.sort_unstable();
                    diags.push(
                        p.src
                            .at(
                                &at("tool_name"),
                                true,
                                format!("`tool_name: {name}` names no tool of agent `{}`", spec.name),
                            )
                            .help(
                                did_you_mean(name, sorted.iter().copied())
                                    .map(|s| crate::spec::suggestion_help(name, s))
                                    .unwrap_or_else(|| {
                                        "name one of its tools, or a tool of one of its servers with `toolset_name:`".to_owned()
                                    }),
                            )
                            .note(if sorted.is_empty() {
                                "the agent has no function tools or child agents".to_owned()
                            } else {
                                format!("its tools: {}", sorted.join(", "))
                            }),
                    );
                }
            }
        }
    }
}

/// Whether the last segment of `path` is `name`.
pub(super) fn last_is(path: &syn::Path, name: &str) -> bool {
    path.segments.last().is_some_and(|s| s.ident == name)
}

/// Whether `file` has a top-level `impl .. Trait for Type` (by the last
/// segments of the paths).
pub(super) fn implements(file: &RsFile, ty: &str, trait_name: &str) -> bool {
    file.ast.items.iter().any(|item| match item {
        syn::Item::Impl(i) if cfg_of(&i.attrs).is_none() => {
            i.trait_
                .as_ref()
                .is_some_and(|(path, _)| last_is(path, trait_name))
                && matches!(&*i.self_ty, syn::Type::Path(p) if p.qself.is_none() && last_is(&p.path, ty))
        }
        _ => false,
    })
}

/// Why the `LifecycleHooks` that `ty`'s impl in `file` names is not
/// hookwire's, if it is not: a path that does not start with `hookwire`,
/// or a bare name that the file defines itself, imports from elsewhere or
/// does not import.
fn foreign_lifecycle_trait(file: &RsFile, ty: &str) -> Option<String> {
    const TRAIT: &str = "LifecycleHooks";
    let path = file.ast.items.iter().find_map(|item| match item {
        syn::Item::Impl(i) if cfg_of(&i.attrs).is_none() => i
            .trait_
            .as_ref()
            .filter(|(path, _)| last_is(path, TRAIT))
            .filter(|_| matches!(&*i.self_ty, syn::Type::Path(p) if p.qself.is_none() && last_is(&p.path, ty)))
            .map(|(path, _)| path),
        _ => None,
    })?;
    if path.segments.len() > 1 {
        let first = path.segments.first()?.ident.to_string();
        return (first != "hookwire")
            .then(|| format!("its path starts with `{first}`, not `hookwire`"));
    }
    let defined = file.ast.items.iter().find_map(|item| {
        let (keyword, ident) = match item {
            syn::Item::Trait(t) => ("trait", &t.ident),
            syn::Item::TraitAlias(t) => ("trait", &t.ident),
            syn::Item::Struct(s) => ("struct", &s.ident),
            syn::Item::Enum(e) => ("enum", &e.ident),
            syn::Item::Type(t) => ("type", &t.ident),
            _ => return None,
        };
        (ident == TRAIT).then(|| format!("this file defines its own `{keyword} {TRAIT}`"))
    });
    if defined.is_some() {
        return defined;
    }
    let mut imports = Vec::new();
    let mut has_glob = false;
    for item in &file.ast.items {
        if let syn::Item::Use(u) = item {
            imported_as(&u.tree, &mut Vec::new(), TRAIT, &mut imports);
            has_glob |= has_glob_import(&u.tree);
        }
    }
    match imports.first() {
        // A glob import may bring it: the compiler decides.
        None if has_glob => None,
        None => Some(format!("`{TRAIT}` is not imported in this file")),
        Some(full) if full.first().is_some_and(|f| f == "hookwire") => None,
        Some(full) => Some(format!(
            "it is `{}`, imported at the top of the file",
            full.join("::")
        )),
    }
}

/// The full paths of the `use` items of `tree` that bring `name` into
/// scope (`use a::b::{c as name}`, `use a::name`).
fn imported_as(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    name: &str,
    out: &mut Vec<Vec<String>>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            imported_as(&p.tree, prefix, name, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == name => {
            let mut full = prefix.clone();
            full.push(n.ident.to_string());
            out.push(full);
        }
        syn::UseTree::Rename(r) if r.rename == name => {
            let mut full = prefix.clone();
            full.push(r.ident.to_string());
            out.push(full);
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                imported_as(t, prefix, name, out);
            }
        }
        _ => {}
    }
}

/// Whether `tree` holds a `*` import.
fn has_glob_import(tree: &syn::UseTree) -> bool {
    match tree {
        syn::UseTree::Glob(_) => true,
        syn::UseTree::Path(p) => has_glob_import(&p.tree),
        syn::UseTree::Group(g) => g.items.iter().any(has_glob_import),
        _ => false,
    }
}
