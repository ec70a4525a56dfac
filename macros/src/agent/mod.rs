//! `#[agent(...)]`: parse the attribute into the shared `AgentSpec` and hand
//! it to the shared emitter. No chain is built here.

mod entries;
mod settings;
mod spec;
#[cfg(all(test, feature = "output-schema"))]
mod tests;

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
    AgentRef, AgentSpec, CoverageKind, CoverageSpec, EventHookAction, EventHookSpec, FailurePolicy,
    FnRef, Frequency, HookEvent, HookRef, InstructionRef, LifecycleRef, Matcher, McpToolsSpec,
    RefreshCondition, ToolCallInjection, ToolRef,
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
use spec::*;

/// The keys of `#[agent(...)]`: the fields every declaration has
/// (`hookwire_spec::AGENT_FIELDS`, a card's too; a card's `output_type`
/// is `output` here), `crate`, and `mcp_lock` (a card has the lock beside
/// it).
fn agent_keys() -> Vec<&'static str> {
    AGENT_FIELDS
        .iter()
        .copied()
        .map(|k| if k == "output_type" { "output" } else { k })
        .chain(["coverage", "crate", "mcp_lock"])
        .collect()
}
const TOOL_ENTRY_KEYS: &[&str] = &["name", "tool_hooks", "available", "instruction"];
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
    /// `coverage = [approval_or_guard(match = ".."), ..]`.
    #[darling(default)]
    coverage: Entries,
    /// `max_parallel`, `model`, ...: the rows of the settings table.
    #[darling(flatten)]
    settings: settings::SettingsAttr,
    #[darling(default)]
    tool_input_schema: Option<syn::LitStr>,
    #[darling(default)]
    output: Option<syn::Path>,
    #[darling(default)]
    output_schema: Option<syn::LitStr>,
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
    /// `mcp_lock = "hookwire.lock"`: the MCP lock, relative to
    /// `CARGO_MANIFEST_DIR`.
    #[darling(default)]
    mcp_lock: Option<syn::LitStr>,
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
                const POLICY: #krate::Policy = #krate::Policy::new(#name, &[], &[]);
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

/// Expands `#[agent(attr)] item`: the attribute into an `AgentSpec`, every
/// mistake in it reported, then the shared emitter.
fn expand(attr: TokenStream, item: &syn::ItemStruct) -> syn::Result<TokenStream> {
    check_shape(item)?;
    // A derive the agent cannot have is reported, and left out, so that
    // the rest still expands: one mistake, one error.
    let (attrs, derive_error) = agent_attrs(item);
    let a = parse_attr(attr)?;
    let krate_path = krate::hookwire(a.krate.clone());
    let krate = path_text(&krate_path);
    let mut spec = declared_spec(&a, item)?;
    let mut errors = Errors::default();
    let lock_file = mcp_lock(&a, &mut spec, &mut errors);
    mcp_tools(&a, &mut spec, &mut errors);
    function_tools(&krate, &a, &mut spec, &mut errors);
    child_agents(&krate, &a, &mut spec, &mut errors);
    hooks(&krate, &a, &mut spec, &mut errors);
    coverage(&a, &mut spec, &mut errors);
    a.settings.lower(&mut spec.settings, &mut errors);
    schemas(&a, &mut spec, &mut errors);
    errors.finish()?;

    let opts = EmitOptions::new(krate_path)
        .agent_type(item.ident.clone())
        .vis(item.vis.clone())
        .agent_attrs(attrs);
    let tokens = emit::agent(&spec, &opts)?;
    let error = derive_error.map(|e| e.to_compile_error());
    // The lock is an input of the expansion: a change to it rebuilds.
    let tracked = lock_file.map(|path| {
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });
    Ok(quote!(#error #tracked #tokens))
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
