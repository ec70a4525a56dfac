//! The argument types of the MCP tools a lock pins (`hookwire.lock`):
//! each locked tool's input schema made a Rust type (serde `Serialize` and
//! `Deserialize`), in a module beside the agent (`<agent>_mcp`, such as
//! `shop_mcp::TimeGetCurrentTime` for `time__get_current_time`), so that a
//! typed hook can take a locked MCP tool's arguments as their Rust type.
//!
//! typify writes the types (this module is the only user of it). What the
//! generated code needs is reached through `hookwire::__private`, so the
//! user's crate needs no dependency of its own. A schema's `pattern`s are
//! left out of the types (the server checks them; a pattern would need a
//! regex crate in the user's build): such a field is a `String`.

use std::collections::BTreeMap;

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::spec::{AgentSpec, McpLock, mcp_tool_name};

/// The argument types of an agent's locked MCP tools.
pub(crate) struct McpTypes {
    /// The path of the module that holds them.
    base: TokenStream,
    /// Each typed tool (`server__tool`) and its type's name in the module.
    by_tool: BTreeMap<String, syn::Ident>,
    /// The module with its types, when it is declared beside the agent.
    pub(crate) item: TokenStream,
}

impl McpTypes {
    /// The path of `tool`'s argument type, if it has one.
    pub(crate) fn path_of(&self, tool: &str) -> Option<TokenStream> {
        let base = &self.base;
        self.by_tool.get(tool).map(|ty| quote!(#base::#ty))
    }
}

/// The argument types of the tools of `spec`'s lock (every tool of every
/// server it pins: the same types whichever agent declares them), declared
/// beside the agent in `<agent>_mcp`, or named under
/// [`EmitOptions::mcp_types_in`](super::EmitOptions::mcp_types_in); `None`
/// without a lock or without a typed tool. A tool whose schema typify cannot
/// make a type of gets none (a typed hook cannot select it).
pub(crate) fn mcp_types(
    krate: &syn::Path,
    spec: &AgentSpec,
    agent_ty: &syn::Ident,
    opts: &super::EmitOptions,
) -> Option<McpTypes> {
    let lock = spec.mcp_lock.as_ref()?;
    if let Some(path) = &opts.mcp_types_in {
        let (_, by_tool) = type_space(lock)?;
        return Some(McpTypes {
            base: quote!(#path),
            by_tool,
            item: TokenStream::new(),
        });
    }
    let module = format_ident!("{}", module_name(&agent_ty.to_string()));
    let doc = format!(
        " The argument types of the MCP tools `{}`'s lock pins (from each \
         tool's input schema), for typed hooks.",
        spec.name
    );
    let (item, by_tool) = module_item(krate, lock, &module, &opts.vis, &doc)?;
    Some(McpTypes {
        base: quote!(#module),
        by_tool,
        item,
    })
}

/// The module `module` of a card set whose cards share `lock`: the
/// argument types of its tools, once for every card (each card's agent
/// names them through
/// [`EmitOptions::mcp_types_in`](super::EmitOptions::mcp_types_in)); `None`
/// if no tool of the lock has one.
pub fn mcp_types_module(krate: &syn::Path, lock: &McpLock, module: &str) -> Option<TokenStream> {
    let module = format_ident!("{module}");
    let doc = " The argument types of the MCP tools the cards' lock (`hookwire.lock`) \
               pins, from each tool's input schema, for typed hooks \
               (`time__get_current_time` has `TimeGetCurrentTime`).";
    module_item(krate, lock, &module, &syn::parse_quote!(pub), doc).map(|(item, _)| item)
}

/// The module `module` of `lock`'s argument types, and each typed tool's
/// type name.
fn module_item(
    krate: &syn::Path,
    lock: &McpLock,
    module: &syn::Ident,
    vis: &syn::Visibility,
    doc: &str,
) -> Option<(TokenStream, BTreeMap<String, syn::Ident>)> {
    let (space, by_tool) = type_space(lock)?;
    let serde = crate::lower::path_string(&syn::parse_quote!(#krate::__private::serde));
    let types = reroute(space.to_stream(), krate, &serde);
    let item = quote! {
        #[doc = #doc]
        // typify's code, not the user's: no lint of theirs applies.
        #[allow(
            warnings,
            dead_code,
            missing_docs,
            unreachable_pub,
            unused_qualifications,
            rust_2018_idioms,
            non_camel_case_types,
            non_snake_case,
            clippy::all,
            clippy::pedantic,
            clippy::nursery,
            clippy::restriction
        )]
        #vis mod #module {
            #types
        }
    };
    Some((item, by_tool))
}

/// The name of the module of `agent_ty`'s MCP argument types
/// (`ShopDesk` has `shop_desk_mcp`).
fn module_name(agent_ty: &str) -> String {
    format!("{}_mcp", super::snake_case(agent_ty))
}

/// The argument type's name of each tool of `spec`'s lock that has one
/// (`time__get_current_time` has `TimeGetCurrentTime`), as [`mcp_types`]
/// names them: what cardgen checks a card's typed hooks against.
pub(crate) fn typed_tools(spec: &AgentSpec) -> BTreeMap<String, String> {
    spec.mcp_lock
        .as_deref()
        .and_then(type_space)
        .map(|(_, by_tool)| {
            by_tool
                .into_iter()
                .map(|(tool, ty)| (tool, ty.to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// typify's types of every tool `lock` pins, in the lock's order, and each
/// typed tool's type name; `None` if no tool has one.
fn type_space(lock: &McpLock) -> Option<(typify_impl::TypeSpace, BTreeMap<String, syn::Ident>)> {
    let mut settings = typify_impl::TypeSpaceSettings::default();
    settings.with_struct_builder(false);
    let mut space = typify_impl::TypeSpace::new(&settings);
    let mut by_tool = BTreeMap::new();
    for (server, tools) in &lock.servers {
        for (name, tool) in tools {
            let tool_name = mcp_tool_name(server, name);
            let Some(ty) = super::type_name_for(&tool_name) else {
                continue;
            };
            if let Some(named) = add_schema(&mut space, &ty, &tool.input_schema) {
                by_tool.insert(tool_name, format_ident!("{named}"));
            }
        }
    }
    (!by_tool.is_empty()).then_some((space, by_tool))
}

/// Adds the type of `schema`, named `name`, to `space`: the name typify
/// gave it, `None` if it made none.
fn add_schema(space: &mut typify_impl::TypeSpace, name: &str, schema: &Value) -> Option<String> {
    let mut schema = schema.clone();
    without_patterns(&mut schema);
    let Value::Object(fields) = &mut schema else {
        return None;
    };
    fields.insert("title".to_owned(), Value::String(name.to_owned()));
    let root = serde_json::from_value::<schemars08::schema::RootSchema>(schema).ok()?;
    // typify is a library of someone else's: a schema it cannot handle
    // gives the tool no type, never a failed build.
    let added =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| space.add_root_schema(root)));
    let id = added.ok()?.ok()??;
    let named = space.get_type(&id).ok()?.name();
    // A name typify made up (a type it already had, under another name)
    // is still the tool's type.
    syn::parse_str::<syn::Ident>(&named).ok().map(|_| named)
}

/// Takes every `pattern`, `patternProperties` and string `format` out of
/// a schema (not a property of that name): typify would need a regex crate
/// for a pattern and chrono or uuid for a `date-time` or `uuid` format in
/// the user's build. Such a value is a `String`; the server checks it.
fn without_patterns(schema: &mut Value) {
    match schema {
        Value::Object(fields) => {
            fields.retain(|key, value| {
                !(key == "patternProperties"
                    || (matches!(key.as_str(), "pattern" | "format") && value.is_string()))
            });
            for (key, value) in fields.iter_mut() {
                if matches!(key.as_str(), "properties" | "$defs" | "definitions")
                    && let Value::Object(named) = value
                {
                    named.values_mut().for_each(without_patterns);
                } else {
                    without_patterns(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_patterns),
        _ => {}
    }
}

/// typify's tokens, with `::serde` and `::serde_json` reached through
/// `krate::__private`, and each serde derive told where serde is.
fn reroute(tokens: TokenStream, krate: &syn::Path, serde: &str) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < trees.len() {
        // `::serde` / `::serde_json` at a path's start.
        if let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(c))) =
            (trees.get(i), trees.get(i + 1), trees.get(i + 2))
            && a.as_char() == ':'
            && a.spacing() == Spacing::Joint
            && b.as_char() == ':'
            && (c == "serde" || c == "serde_json")
            && !after_segment(i.checked_sub(1).and_then(|p| trees.get(p)))
        {
            out.extend(quote!(#krate::__private::#c));
            i += 3;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(group) => {
                let mut inner =
                    Group::new(group.delimiter(), reroute(group.stream(), krate, serde));
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
                if is_serde_derive(trees.get(i.wrapping_sub(1)), group) {
                    out.extend(quote!(#[serde(crate = #serde)]));
                }
            }
            other => out.extend([other.clone()]),
        }
        i += 1;
    }
    out
}

/// Whether `before`, the token before a `::`, is a path's segment (so the
/// `::` continues that path): an identifier that is not a keyword which
/// may come before a path (`<D::Error as ::serde::de::Error>`).
fn after_segment(before: Option<&TokenTree>) -> bool {
    const BEFORE_A_PATH: &[&str] = &[
        "as", "async", "await", "break", "const", "dyn", "else", "for", "if", "impl", "in", "let",
        "match", "move", "mut", "pub", "ref", "return", "static", "type", "unsafe", "use", "where",
        "while",
    ];
    match before {
        Some(TokenTree::Ident(ident)) => !BEFORE_A_PATH.contains(&ident.to_string().as_str()),
        _ => false,
    }
}

/// Whether `group`, after `before`, is the bracket of a
/// `#[derive(..)]` that names serde.
fn is_serde_derive(before: Option<&TokenTree>, group: &Group) -> bool {
    let hash = matches!(before, Some(TokenTree::Punct(p)) if p.as_char() == '#');
    if !hash || group.delimiter() != Delimiter::Bracket {
        return false;
    }
    let mut inner = group.stream().into_iter();
    let derive = matches!(inner.next(), Some(TokenTree::Ident(i)) if i == "derive");
    derive && inner.any(|t| names_serde(&t))
}

fn names_serde(tree: &TokenTree) -> bool {
    match tree {
        TokenTree::Ident(i) => i == "serde",
        TokenTree::Group(g) => g.stream().into_iter().any(|t| names_serde(&t)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    /// The types typify makes of `schemas` (tool name, schema), rerouted.
    fn types_of(schemas: &[(&str, Value)]) -> (Vec<String>, String) {
        let mut settings = typify_impl::TypeSpaceSettings::default();
        settings.with_struct_builder(false);
        let mut space = typify_impl::TypeSpace::new(&settings);
        let typed = schemas
            .iter()
            .filter_map(|(name, schema)| add_schema(&mut space, name, schema))
            .collect();
        let krate: syn::Path = syn::parse_quote!(::hookwire);
        let code = reroute(space.to_stream(), &krate, "::hookwire::__private::serde");
        (typed, code.to_string())
    }

    #[test]
    fn a_schema_becomes_a_serde_type_reached_through_hookwire() {
        let (typed, code) = types_of(&[(
            "Pay",
            json!({"type": "object", "required": ["to"], "properties": {
                "to": {"type": "string", "pattern": "^[a-z]+$"},
                "pattern": {"type": "string"},
                "amount": {"type": "integer", "minimum": 0},
                "code": {"type": "string", "minLength": 2, "maxLength": 4},
                "at": {"type": "string", "format": "date-time"},
                "id": {"type": "string", "format": "uuid"}
            }}),
        )]);
        assert_eq!(typed, ["Pay"]);
        // serde and serde_json through hookwire; every serde derive told so.
        assert!(
            code.contains("as :: hookwire :: __private :: serde"),
            "{code}"
        );
        let bare = code.replace("__private :: serde", "");
        assert!(!bare.contains(":: serde"), "{code}");
        assert!(
            code.contains(":: hookwire :: __private :: serde :: Deserialize"),
            "{code}"
        );
        assert!(
            code.contains("# [serde (crate = \"::hookwire::__private::serde\")]"),
            "{code}"
        );
        // The pattern is left out: `to` is a `String`, no regex crate; a
        // property named `pattern` stays.
        assert!(!code.contains("regress"), "{code}");
        // A format is left out too: no chrono or uuid in the user's build.
        assert!(
            !code.contains("chrono") && !code.contains("uuid ::"),
            "{code}"
        );
        assert!(
            code.contains("pub at : :: std :: option :: Option < :: std :: string :: String >"),
            "{code}"
        );
        assert!(
            code.contains("pub to : :: std :: string :: String"),
            "{code}"
        );
        assert!(code.contains("pub pattern :"), "{code}");
        assert!(
            code.contains("pub amount : :: std :: option :: Option < u64 >"),
            "{code}"
        );
    }

    #[test]
    fn a_schema_typify_cannot_type_gives_no_type() {
        let (typed, _) = types_of(&[
            ("NotAnObject", json!(["type", "object"])),
            ("BadRef", json!({"$ref": "#/definitions/missing"})),
            (
                "Ok",
                json!({"type": "object", "properties": {"a": {"type": "boolean"}}}),
            ),
        ]);
        assert_eq!(typed, ["Ok"]);
    }

    #[test]
    fn an_agents_types_are_in_its_snake_case_module() {
        assert_eq!(module_name("Clock"), "clock_mcp");
        assert_eq!(module_name("ShopDesk"), "shop_desk_mcp");
    }
}

#[cfg(test)]
mod injection_tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    /// A lock's text (descriptions, property names) never becomes code: the
    /// formatted module declares only the type and its fields.
    #[test]
    fn a_schemas_text_stays_text() {
        let lock = crate::spec::McpLock::parse(
            &json!({"version": 1, "servers": {"evil": {"tool": {
                "description": format!("sha256:{}", "0".repeat(64)),
                "annotations": {},
                "input_schema": {"type": "object", "required": ["x"], "properties": {
                    "x\"]} pub fn injected() {} #[doc = \"": {
                        "type": "string",
                        "description": "*/ \n pub fn injected2() {} \n /*"
                    }
                }}
            }}}})
            .to_string(),
        )
        .unwrap();
        let module =
            super::mcp_types_module(&syn::parse_quote!(::hookwire), &lock, "mcp_types").unwrap();
        let code = crate::emit::format_file(module, "evil").unwrap();
        let file = syn::parse_file(&code).unwrap();
        let syn::Item::Mod(module) = &file.items[0] else {
            panic!("{code}")
        };
        // Only types, their impls and typify's `error` module: no function
        // of the schema's text.
        fn free_fns(items: &[syn::Item]) -> usize {
            items
                .iter()
                .map(|item| match item {
                    syn::Item::Fn(_) => 1,
                    syn::Item::Mod(m) => m.content.as_ref().map_or(0, |(_, i)| free_fns(i)),
                    _ => 0,
                })
                .sum()
        }
        assert_eq!(free_fns(&file.items), 0, "{code}");
        let structs: Vec<String> = module
            .content
            .as_ref()
            .unwrap()
            .1
            .iter()
            .filter_map(|item| match item {
                syn::Item::Struct(s) => Some(s.ident.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(structs, ["EvilTool"], "{code}");
    }
}
