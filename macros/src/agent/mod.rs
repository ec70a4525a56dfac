//! `#[agent(...)]`: parse the attribute into the shared `AgentSpec` and hand
//! it to the shared emitter. No chain is built here.

mod entries;

use std::str::FromStr;

use darling::FromMeta;
use darling::ast::NestedMeta;
use hookwire_codegen::emit::{self, EmitOptions};
use hookwire_codegen::lower::Instruction;
use hookwire_codegen::spec::{
    AGENT_FIELDS, HOOK_OPTIONS, InvalidName, LIFECYCLE_OPTIONS, check_agent_name,
    check_mcp_filter_server, check_tool_input_schema, check_tool_name,
};
use hookwire_codegen::spec::{
    AgentRef, AgentSpec, EventHookAction, EventHookSpec, FailurePolicy, FnRef, Frequency,
    HistoryMergeTarget, HistorySource, HookEvent, HookRef, InstructionRef, LifecycleRef, Matcher,
    McpToolsSpec, RefreshCondition, ToolCallInjection, ToolRef,
};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use crate::keys::{positive, unknown_value};
use crate::{keys, krate};
use entries::*;
pub(crate) use entries::{Entries, hook_ref};

/// The keys of `#[agent(...)]`: the fields every declaration has
/// (`hookwire_spec::AGENT_FIELDS`, a card's too; a card's `output_type`
/// is `output` here), and `crate`.
fn agent_keys() -> Vec<&'static str> {
    AGENT_FIELDS
        .iter()
        .copied()
        .map(|k| if k == "output_type" { "output" } else { k })
        .chain(["crate"])
        .collect()
}
const TOOL_ENTRY_KEYS: &[&str] = &["name", "hooks", "available", "instruction"];
const AGENT_ENTRY_KEYS: &[&str] = &["name", "output", "on_error", "meta"];
const EVENT_HOOK_KEYS: &[&str] = &[
    "tool_name",
    "toolset_name",
    "arguments",
    "frequency",
    "ttl_minutes",
    "name",
    "timeout_sec",
];

#[derive(Debug, FromMeta)]
struct AgentAttr {
    #[darling(default)]
    name: Option<syn::LitStr>,
    #[darling(default)]
    durable_name: Option<syn::LitStr>,
    #[darling(default)]
    deps: Option<syn::Path>,
    #[darling(default)]
    instruction: Option<syn::LitStr>,
    #[darling(default)]
    description: Option<syn::LitStr>,
    #[darling(default)]
    default: bool,
    #[darling(default)]
    servers: Vec<syn::LitStr>,
    #[darling(default)]
    runtime_tools: bool,
    #[darling(default)]
    tools: McpTools,
    #[darling(default)]
    function_tools: Entries,
    #[darling(default)]
    agents: Entries,
    #[darling(default)]
    tool_hooks: Entries,
    #[darling(default)]
    hooks: Entries,
    #[darling(default)]
    max_parallel: Option<syn::Lit>,
    #[darling(default)]
    child_timeout_sec: Option<syn::Lit>,
    #[darling(default)]
    history_source: Option<syn::LitStr>,
    #[darling(default)]
    history_merge_target: Option<syn::LitStr>,
    #[darling(default)]
    max_display_instances: Option<syn::Lit>,
    #[darling(default)]
    model: Option<syn::LitStr>,
    #[darling(default)]
    use_history: Option<bool>,
    #[darling(default)]
    tool_input_schema: Option<syn::LitStr>,
    #[darling(default)]
    output: Option<syn::Path>,
    #[darling(default)]
    output_schema: Option<syn::LitStr>,
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
}

pub(crate) fn agent(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match syn::parse2::<syn::ItemStruct>(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                format!(
                    "`#[agent(...)]` goes on a struct, as in `#[agent(name = \"calc\")] struct Calc;`: {e}"
                ),
            );
            let e = e.to_compile_error();
            return quote!(#e #item);
        }
    };
    // The emitter declares the struct (it gives it its fields: the tool set
    // and the configuration); on error the user's struct stays as written,
    // so that the error is the only one.
    match expand(attr.clone(), &item) {
        Ok(tokens) => tokens,
        Err(e) => {
            let e = e.to_compile_error();
            let stub = stub_constructor(&attr, &item);
            quote!(#item #e #stub)
        }
    }
}

/// On error, a constructor for the struct as written, so that the error is
/// the only one: the code that builds the agent (`Name::new()`, or
/// `Name::new(&deps)` with a `deps` key) still compiles.
fn stub_constructor(attr: &TokenStream, item: &syn::ItemStruct) -> TokenStream {
    if !matches!(item.fields, syn::Fields::Unit) {
        return TokenStream::new();
    }
    let ident = &item.ident;
    let vis = &item.vis;
    let with_deps = attr.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "deps",
        _ => false,
    });
    let param = with_deps.then(|| quote!(_deps: &impl ::core::any::Any));
    let krate = crate::tool_hook::stub_crate(attr);
    let name = stub_name(attr).unwrap_or_else(|| crate::unraw(ident));
    let never = format!("the `#[agent]` declaration of `{ident}` did not compile");
    quote! {
        impl #ident {
            #[allow(dead_code, missing_docs)]
            #vis fn new(#param) -> Self {
                #ident
            }
        }
        // What code that uses the agent asks of it (`Runner::new`, a
        // parent's `agents = [..]`), so that the error above stays the only
        // one. It never runs: the crate does not compile.
        const _: () = {
            impl #krate::agent::Agent for #ident {
                type Tools = #krate::Router;

                fn config(&self) -> &#krate::agent::AgentConfig {
                    ::core::unreachable!(#never)
                }

                fn tools(&self) -> &#krate::Router {
                    ::core::unreachable!(#never)
                }
            }

            impl #krate::declare::GeneratedAgent for #ident {
                const NAME: &'static str = #name;
            }

            impl<__D> #krate::FromDeps<__D> for #ident {
                fn from_deps(_: &__D) -> Self {
                    #ident
                }
            }
        };
    }
}

/// The `name = ".."` of an attribute that failed, for the stand-in of the
/// agent (a parent checks its child's name).
fn stub_name(attr: &TokenStream) -> Option<String> {
    match crate::tool_hook::stub_value(attr, "name")? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    }
}

/// The error for a name the spec's name rule refuses, with its help.
fn name_error(span: Span, e: &InvalidName) -> syn::Error {
    syn::Error::new(span, format!("{}: {}", e.message, e.help))
}

fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// The type of an entry as generated code names it. (Naming it through a
/// check trait, `<T as IsHook>::Hook`, was tried: rustc then reports the
/// failed projection once per use, which is worse than the emitter's own
/// spanned check.)
fn checked(_krate: &str, path: &syn::Path) -> String {
    path_text(path)
}

fn last_name(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| crate::unraw(&s.ident))
        .unwrap_or_default()
}

fn expand(attr: TokenStream, item: &syn::ItemStruct) -> syn::Result<TokenStream> {
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "an agent struct cannot be generic: expected `#[agent(...)] struct Name;`",
        ));
    }
    if !matches!(item.fields, syn::Fields::Unit) {
        return Err(syn::Error::new_spanned(
            &item.fields,
            "an agent struct has no fields of its own: `#[agent]` gives it its tool set; pass what its tools need as `deps = YourDeps` and build it with `Name::new(&deps)`. Expected `#[agent(...)] struct Name;`",
        ));
    }
    // A derive the agent cannot have is reported, and left out, so that
    // the rest still expands: one mistake, one error.
    let (attrs, derive_error) = agent_attrs(item);
    let (attr, lists) = split_lists(attr)?;
    let metas = NestedMeta::parse_meta_list(attr)?;
    keys::check(&metas, "`#[agent(...)]`", &agent_keys())?;
    let mut a = AgentAttr::from_list(&metas).map_err(syn::Error::from)?;
    for (key, span, entries) in lists {
        let slot = match key.as_str() {
            "function_tools" => &mut a.function_tools,
            "agents" => &mut a.agents,
            "tool_hooks" => &mut a.tool_hooks,
            _ => &mut a.hooks,
        };
        if !slot.0.is_empty() {
            return Err(syn::Error::new(
                span,
                format!("duplicate key `{key}` in `#[agent(...)]`: give each key once"),
            ));
        }
        *slot = entries;
    }
    let krate_path = krate::hookwire(a.krate.clone());
    let krate = path_text(&krate_path);
    let (name, name_span) = match &a.name {
        Some(n) => (n.value(), n.span()),
        None => (crate::unraw(&item.ident), item.ident.span()),
    };
    if let Err(e) = check_agent_name(&name) {
        return Err(name_error(name_span, &e));
    }
    let mut spec = AgentSpec::new(name);
    spec.span = Some(item.ident.span());
    if let Some(durable) = &a.durable_name {
        if let Err(e) = hookwire_codegen::spec::check_durable_name(&durable.value()) {
            return Err(name_error(durable.span(), &e));
        }
        spec.durable_name = Some(durable.value());
    }
    spec.deps = a.deps.as_ref().map(path_text);
    if let Some(i) = &a.instruction {
        spec.instruction = i.value();
    }
    spec.description = a.description.as_ref().map(syn::LitStr::value);
    spec.default = a.default;
    spec.servers = a.servers.iter().map(syn::LitStr::value).collect();
    spec.runtime_tools = a.runtime_tools;
    let mut errors: Option<syn::Error> = None;
    let mut push_err = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    for (server, span, globs) in a.tools.0 {
        if let Err(message) = check_mcp_filter_server(&server, &spec.servers) {
            push_err(syn::Error::new(span, message));
        }
        for glob in &globs {
            if let Err(e) = Matcher::glob(&glob.value()) {
                push_err(syn::Error::new(
                    glob.span(),
                    format!("invalid tool filter: {e}"),
                ));
            }
        }
        spec.mcp_tools.push(McpToolsSpec {
            server,
            globs: globs.iter().map(syn::LitStr::value).collect(),
        });
    }

    for entry in &a.function_tools.0 {
        match entry_args::<ToolEntryAttr>(entry, "this `function_tools` entry", TOOL_ENTRY_KEYS) {
            Ok(t) => {
                let tool_name = t
                    .name
                    .as_ref()
                    .map_or_else(|| last_name(&entry.path), syn::LitStr::value);
                if let Err(e) = check_tool_name(&tool_name, "tool name") {
                    let span = t.name.as_ref().map_or(entry.path.span(), |n| n.span());
                    push_err(name_error(span, &e));
                }
                let mut tool = ToolRef::new(checked(&krate, &entry.path), tool_name);
                tool.span = Some(entry.path.span());
                tool.tokens = Some(entry.path.to_token_stream());
                tool.available = t.available.as_ref().map(|a| fn_ref(&a.0));
                tool.instruction = t.instruction.as_ref().and_then(|i| match &i.0 {
                    Instruction::Text(text) => Some(InstructionRef::Text(text.value())),
                    Instruction::Fn(path) => Some(InstructionRef::Fn(fn_ref(path))),
                    _ => None,
                });
                for h in &t.hooks.0 {
                    match hook_ref(&krate, h, "this `tool_hooks` entry", &HOOK_OPTIONS) {
                        Ok(h) => tool = tool.with_hook(h),
                        Err(e) => push_err(e),
                    }
                }
                spec.function_tools.push(tool);
            }
            Err(e) => push_err(e),
        }
    }
    for entry in &a.agents.0 {
        match entry_args::<AgentEntryAttr>(entry, "this `agents` entry", AGENT_ENTRY_KEYS) {
            Ok(c) => {
                let mut child = AgentRef::new(
                    c.name
                        .as_ref()
                        .map_or_else(|| last_name(&entry.path), syn::LitStr::value),
                );
                if let Err(e) = check_agent_name(&child.name) {
                    let span = c.name.as_ref().map_or(entry.path.span(), |n| n.span());
                    push_err(name_error(span, &e));
                }
                child.ty = Some(checked(&krate, &entry.path));
                child.span = Some(entry.path.span());
                child.tokens = Some(entry.path.to_token_stream());
                child.output = c.output.as_ref().map(fn_ref);
                child.on_error = c.on_error.as_ref().map(fn_ref);
                child.meta = hookwire_codegen::spec::ToolMeta::from_pairs(
                    c.meta.map(|m| m.0).unwrap_or_default(),
                );
                spec.agents.push(child);
            }
            Err(e) => push_err(e),
        }
    }
    for entry in &a.tool_hooks.0 {
        match hook_ref(&krate, entry, "this `tool_hooks` entry", &HOOK_OPTIONS) {
            Ok(h) => spec.tool_hooks.push(h),
            Err(e) => push_err(e),
        }
    }
    for entry in &a.hooks.0 {
        if is_type_path(&entry.path) {
            // A type (`NoShell`, `crate::hooks::Guard`): a lifecycle hook.
            match lifecycle_ref(entry) {
                Ok(l) => spec.lifecycle_hooks.push(l),
                Err(e) => push_err(e),
            }
            continue;
        }
        match event_hook(entry) {
            Ok(h) => spec.hooks.push(h),
            Err(e) => push_err(e),
        }
    }
    let mut number = |lit: &Option<syn::Lit>, key: &str, example: &str| match lit {
        Some(l) => match positive(l, key, example) {
            Ok(n) => Some(n),
            Err(e) => {
                push_err(e);
                None
            }
        },
        None => None,
    };
    spec.max_parallel = number(&a.max_parallel, "max_parallel", "4");
    spec.child_timeout_sec = number(&a.child_timeout_sec, "child_timeout_sec", "60");
    spec.max_display_instances = number(&a.max_display_instances, "max_display_instances", "20");
    if let Some(h) = &a.history_source {
        match HistorySource::from_str(&h.value()) {
            Ok(v) => spec.history_source = v,
            Err(e) => push_err(unknown_value(h, "history_source", &e)),
        }
    }
    if let Some(h) = &a.history_merge_target {
        match HistoryMergeTarget::from_str(&h.value()) {
            Ok(v) => spec.history_merge_target = v,
            Err(e) => push_err(unknown_value(h, "history_merge_target", &e)),
        }
    }
    spec.model = a.model.as_ref().map(syn::LitStr::value);
    spec.use_history = a.use_history;
    if let Some(s) = &a.tool_input_schema {
        let checked = serde_json::from_str::<serde_json::Value>(&s.value())
            .map_err(|_| "`tool_input_schema` must be a JSON Schema object".to_owned())
            .and_then(|schema| check_tool_input_schema(&schema));
        match checked {
            Ok(()) => spec.tool_input_schema = Some(s.value()),
            Err(message) => push_err(syn::Error::new(
                s.span(),
                format!(
                    "{message}: expected `tool_input_schema = r#\"{{\"type\": \"object\", ...}}\"#`"
                ),
            )),
        }
    }
    spec.output_type = a.output.as_ref().map(fn_ref);
    if let Some(s) = &a.output_schema {
        if a.output.is_some() {
            push_err(syn::Error::new(
                s.span(),
                "give `output = Type` or `output_schema`, not both: the type's schema is the one asked for",
            ));
        }
        let checked = serde_json::from_str::<serde_json::Value>(&s.value())
            .map_err(|e| format!("`output_schema` is not JSON: {e}"));
        // Without hookwire's `output-schema` feature the generated code is
        // its one error, naming the feature.
        #[cfg(feature = "output-schema")]
        let checked = checked.and_then(|schema| {
            hookwire_codegen::spec::check_output_schema(&schema).map_err(|e| {
                let at = schema_path(&e.path);
                format!("invalid `output_schema`{at}: {}", e.message)
            })
        });
        match checked {
            Ok(_) => spec.output_schema = Some(s.value()),
            Err(message) => push_err(syn::Error::new(s.span(), message)),
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }

    let opts = EmitOptions::new(krate_path)
        .agent_type(item.ident.clone())
        .vis(item.vis.clone())
        .agent_attrs(attrs);
    let tokens = emit::agent(&spec, &opts)?;
    let error = derive_error.map(|e| e.to_compile_error());
    Ok(quote!(#error #tokens))
}

/// The struct's attributes without the derives an agent cannot have (it
/// owns its tool set, so it is not `Copy` or `Clone`, and `#[agent]`
/// implements `Default` itself without `deps`), and the error for the first
/// one found.
fn agent_attrs(item: &syn::ItemStruct) -> (Vec<syn::Attribute>, Option<syn::Error>) {
    let mut error = None;
    let mut attrs = Vec::new();
    for attr in &item.attrs {
        if !attr.path().is_ident("derive") {
            attrs.push(attr.clone());
            continue;
        }
        let Ok(paths) =
            attr.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
        else {
            attrs.push(attr.clone());
            continue;
        };
        let mut kept: Vec<syn::Path> = Vec::new();
        for path in paths {
            let name = path.segments.last().map(|s| s.ident.to_string());
            let why = match name.as_deref() {
                Some("Copy" | "Clone") => {
                    "an agent owns its tool set and is shared, not copied: remove it from the derive and share the agent in an `Arc`"
                }
                Some("Default") => {
                    "`#[agent]` implements `Default` itself for an agent without `deps`: remove it from the derive"
                }
                _ => {
                    kept.push(path);
                    continue;
                }
            };
            if error.is_none() {
                let shown = name.unwrap_or_default();
                error = Some(syn::Error::new_spanned(
                    &path,
                    format!("`#[agent]` struct cannot derive `{shown}`: {why}"),
                ));
            }
        }
        if !kept.is_empty() {
            attrs.push(syn::parse_quote!(#[derive(#(#kept),*)]));
        }
    }
    (attrs, error)
}

/// ` at `a.b[0]`` for a place inside a schema, nothing at its root.
#[cfg(feature = "output-schema")]
fn schema_path(path: &[hookwire_codegen::spec::SchemaStep]) -> String {
    match hookwire_codegen::spec::steps_text(path) {
        at if at.is_empty() => at,
        at => format!(" at `{at}`"),
    }
}

/// A function an entry names (`output = path`, `available = path`), spanned
/// on its path.
fn fn_ref(path: &syn::Path) -> FnRef {
    FnRef {
        path: path_text(path),
        span: Some(path.span()),
        tokens: Some(path.to_token_stream()),
    }
}
