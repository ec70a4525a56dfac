//! `#[tool]` and `#[hook]`: parse the attribute, call the shared lowering.

use darling::FromMeta;
use darling::ast::NestedMeta;
use std::str::FromStr;

use hookwire_codegen::lower::{self, HookOptions, Instruction, NeedsApproval, ToolOptions};
use hookwire_codegen::spec::{FailurePolicy, HOOK_OPTIONS};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use crate::agent::{Entries, hook_ref};
use crate::{keys, krate};

const TOOL_KEYS: &[&str] = &[
    "name",
    "description",
    "strict",
    "needs_approval",
    "tool_hooks",
    "on_error",
    "approval_metadata",
    "available",
    "instruction",
    "meta",
    "crate",
];
/// The options of an entry of a tool's own `tool_hooks = [..]`: a hook entry's
/// options without `match` (the hooks of a tool apply to that tool only).
fn own_hook_keys() -> Vec<&'static str> {
    HOOK_OPTIONS.into_iter().filter(|k| *k != "match").collect()
}
/// The keys of `#[hook(...)]`: a hook entry's options, `name` and `crate`.
fn hook_keys() -> Vec<&'static str> {
    HOOK_OPTIONS.into_iter().chain(["name", "crate"]).collect()
}

#[derive(Debug, FromMeta)]
struct ToolAttr {
    #[darling(default)]
    name: Option<syn::LitStr>,
    #[darling(default)]
    description: Option<syn::LitStr>,
    #[darling(default)]
    strict: bool,
    #[darling(default)]
    needs_approval: Option<Approval>,
    #[darling(default)]
    tool_hooks: Entries,
    #[darling(default)]
    on_error: Option<syn::Path>,
    #[darling(default)]
    approval_metadata: Option<syn::Path>,
    #[darling(default)]
    available: Option<AvailableAttr>,
    #[darling(default)]
    instruction: Option<InstructionAttr>,
    #[darling(default)]
    meta: Option<MetaAttr>,
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
}

/// `meta(risk = "high", destructive)`: the tool's metadata (the shared
/// reading, `lower::parse_meta`).
#[derive(Debug, Default)]
pub(crate) struct MetaAttr(pub(crate) Vec<(String, String)>);

impl FromMeta for MetaAttr {
    fn from_meta(item: &syn::Meta) -> darling::Result<Self> {
        match item {
            syn::Meta::List(list) => lower::parse_meta(list)
                .map(Self)
                .map_err(darling::Error::from),
            other => Err(darling::Error::custom(
                "expected `meta(key = \"value\", ..)`, as in `meta(risk = \"high\", destructive)`",
            )
            .with_span(other)),
        }
    }
}

/// `needs_approval` (every call), `needs_approval = path` (a predicate on
/// the typed arguments), or `needs_approval = true | false`.
#[derive(Debug)]
enum Approval {
    Always,
    Never,
    When(syn::Path),
}

impl FromMeta for Approval {
    fn from_word() -> darling::Result<Self> {
        Ok(Self::Always)
    }

    fn from_bool(value: bool) -> darling::Result<Self> {
        Ok(if value { Self::Always } else { Self::Never })
    }

    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        match expr {
            syn::Expr::Path(p) if p.qself.is_none() => Ok(Self::When(p.path.clone())),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(b),
                ..
            }) => Self::from_bool(b.value),
            syn::Expr::Group(g) => Self::from_expr(&g.expr),
            other => Err(darling::Error::custom(
                "expected `needs_approval` (every call) or `needs_approval = path::to_predicate`, a `fn(&hookwire::declare::ArgsOf<tool>) -> bool`",
            )
            .with_span(other)),
        }
    }
}

/// `available = path` (a `fn(&hookwire::view::StepView) -> bool`); anything
/// else (`available`, `available = true`) is one error of ours, on it.
#[derive(Debug)]
pub(crate) struct AvailableAttr(pub(crate) syn::Path);

const AVAILABLE_EXPECTED: &str = "expected `available = path::to::function`, a `fn(&hookwire::view::StepView) -> bool` asked at each step (a tool that is always offered needs no `available`)";

impl FromMeta for AvailableAttr {
    fn from_word() -> darling::Result<Self> {
        Err(darling::Error::custom(AVAILABLE_EXPECTED))
    }

    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        match expr {
            syn::Expr::Path(p) if p.qself.is_none() => Ok(Self(p.path.clone())),
            syn::Expr::Group(g) => Self::from_expr(&g.expr),
            other => Err(darling::Error::custom(AVAILABLE_EXPECTED).with_span(other)),
        }
    }
}

/// `instruction = "text"` or `instruction = path` (a
/// `fn(&hookwire::view::StepView) -> String`).
#[derive(Debug)]
pub(crate) struct InstructionAttr(pub(crate) Instruction);

impl FromMeta for InstructionAttr {
    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(text),
                ..
            }) => Ok(Self(Instruction::Text(text.clone()))),
            syn::Expr::Path(p) if p.qself.is_none() => Ok(Self(Instruction::Fn(p.path.clone()))),
            syn::Expr::Group(g) => Self::from_expr(&g.expr),
            other => Err(darling::Error::custom(
                "expected `instruction = \"text\"` or `instruction = path::to::function`, a `fn(&hookwire::view::StepView) -> String`",
            )
            .with_span(other)),
        }
    }
}

#[derive(Debug, FromMeta)]
struct HookAttr {
    #[darling(default, rename = "match")]
    matcher: Option<syn::LitStr>,
    #[darling(default)]
    on_failure: Option<syn::LitStr>,
    #[darling(default)]
    timeout_ms: Option<syn::LitInt>,
    #[darling(default)]
    name: Option<syn::LitStr>,
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
}

fn parse_fn(item: TokenStream, attr: &str) -> syn::Result<syn::ItemFn> {
    syn::parse2::<syn::ItemFn>(item)
        .map_err(|e| syn::Error::new(e.span(), format!("`#[{attr}]` goes on a function: {e}")))
}

/// What a stand-in type stands for.
#[derive(Clone, Copy)]
enum Stub {
    Tool,
    Hook,
}

/// On error, the error plus a stand-in type of the same name, so that one
/// mistake gives one error instead of one more at every use. The stand-in
/// is what an agent asks of the item it replaces (a `Tool` or a `Hook`,
/// `FromDeps` and `Default`, as the generated type is), so that listing it
/// in an `#[agent]` adds no error either. It never runs: the crate does not
/// compile.
fn with_stub(error: syn::Error, item: &syn::ItemFn, stub: Stub, krate: &syn::Path) -> TokenStream {
    let error = error.to_compile_error();
    let vis = &item.vis;
    let ident = &item.sig.ident;
    if item.sig.receiver().is_some() {
        // A method: a stand-in struct cannot go inside an `impl`.
        return error;
    }
    let name = crate::unraw(ident);
    let mut docs: Vec<TokenStream> = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .map(|a| quote!(#a))
        .collect();
    if docs.is_empty() {
        // Documented, so that `missing_docs` adds nothing to the error.
        let what = match stub {
            Stub::Tool => "tool",
            Stub::Hook => "hook",
        };
        let doc = format!(" The {what} `{name}`.");
        docs.push(quote!(#[doc = #doc]));
    }
    let stand_in = match stub {
        Stub::Tool => quote! {
            impl #krate::Tool for #ident {
                type Args = #krate::call::NoArgs;

                fn name(&self) -> &str {
                    #name
                }

                fn description(&self) -> &str {
                    #name
                }

                async fn call(&self, _: &#krate::ToolContext, _: #krate::call::NoArgs) -> #krate::Outcome {
                    ::core::result::Result::Err(#krate::ToolError::UnknownTool {
                        name: ::std::string::String::from(#name),
                    })
                }
            }
        },
        Stub::Hook => quote! {
            impl #krate::Hook for #ident {
                fn around<__HookwireNext: #krate::Handler>(
                    &self,
                    cx: &mut #krate::ToolContext,
                    args: #krate::ToolArgs,
                    next: #krate::Next<'_, __HookwireNext>,
                ) -> impl ::core::future::Future<Output = #krate::Outcome> + ::core::marker::Send {
                    next.run(cx, args)
                }

                fn name(&self) -> &'static str {
                    #name
                }
            }
        },
    };
    let uses = used_paths(&item.sig);
    quote! {
        #error
        #(#docs)*
        #[allow(non_camel_case_types, dead_code)]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        #vis struct #ident {}
        const _: () = {
            // Keeps the imports the signature uses in use, so the error
            // above is not followed by "unused import" warnings.
            #(#[allow(unused_imports)] use #uses as _;)*

            #stand_in

            impl<__D> #krate::FromDeps<__D> for #ident {
                fn from_deps(_: &__D) -> Self {
                    #ident {}
                }
            }
        };
    }
}

/// The `crate = path` of an attribute that may not parse as a whole: the
/// stand-in of a failed item names hookwire as the item would have.
pub(crate) fn stub_crate(attr: &TokenStream) -> syn::Path {
    let path = stub_value(attr, "crate").and_then(|value| match value {
        syn::Expr::Path(p) => Some(p.path),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => s.parse().ok(),
        _ => None,
    });
    krate::hookwire(path)
}

/// The value of `key = value` in an attribute whose keys or values may be
/// wrong (it failed), for the stand-in of the failed item.
pub(crate) fn stub_value(attr: &TokenStream, key: &str) -> Option<syn::Expr> {
    NestedMeta::parse_meta_list(attr.clone())
        .ok()?
        .into_iter()
        .find_map(|meta| match meta {
            NestedMeta::Meta(syn::Meta::NameValue(nv)) if nv.path.is_ident(key) => Some(nv.value),
            _ => None,
        })
}

/// The paths (without generic arguments) of the types in a signature,
/// except primitives and prelude types.
fn used_paths(sig: &syn::Signature) -> Vec<syn::Path> {
    use syn::visit::Visit;
    const SKIP: &[&str] = &[
        "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
        "i64", "i128", "isize", "f32", "f64", "String", "Vec", "Option", "Result", "Box", "Self",
    ];
    struct Collect(Vec<syn::Path>);
    impl<'a> Visit<'a> for Collect {
        fn visit_type_path(&mut self, t: &'a syn::TypePath) {
            if t.qself.is_none() {
                let mut path = t.path.clone();
                for seg in &mut path.segments {
                    seg.arguments = syn::PathArguments::None;
                }
                let first = path.segments.first().map(|s| s.ident.to_string());
                let single_generic =
                    path.segments.len() == 1 && first.as_deref().is_some_and(|f| f.len() == 1);
                if !first.as_deref().is_some_and(|f| SKIP.contains(&f))
                    && !single_generic
                    && !self.0.contains(&path)
                {
                    self.0.push(path);
                }
            }
            syn::visit::visit_type_path(self, t);
        }
    }
    let mut c = Collect(Vec::new());
    for input in &sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            c.visit_type(&t.ty);
        }
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output {
        c.visit_type(ty);
    }
    c.0
}

pub(crate) fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match parse_fn(item, "tool") {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
    };
    let krate = stub_crate(&attr);
    match expand_tool(attr, &item) {
        Ok(tokens) => tokens,
        Err(e) => with_stub(e, &item, Stub::Tool, &krate),
    }
}

fn expand_tool(attr: TokenStream, item: &syn::ItemFn) -> syn::Result<TokenStream> {
    let metas = NestedMeta::parse_meta_list(attr)?;
    keys::check(&metas, "`#[tool(...)]`", TOOL_KEYS)?;
    let parsed = ToolAttr::from_list(&metas).map_err(syn::Error::from)?;
    let mut opts = ToolOptions::new(krate::hookwire(parsed.krate));
    opts.name = parsed.name;
    opts.description = parsed.description;
    opts.strict = parsed.strict;
    opts.needs_approval = match parsed.needs_approval {
        None | Some(Approval::Never) => None,
        Some(Approval::Always) => Some(NeedsApproval::Always(proc_macro2::Span::call_site())),
        Some(Approval::When(path)) => Some(NeedsApproval::When(path)),
    };
    opts.on_error = parsed.on_error;
    opts.approval_metadata = parsed.approval_metadata;
    opts.available = parsed.available.map(|a| a.0);
    opts.instruction = parsed.instruction.map(|i| i.0);
    opts.meta = parsed.meta.map(|m| m.0).unwrap_or_default();
    let krate_text = opts.crate_path.to_token_stream().to_string();
    let mut errors: Option<syn::Error> = None;
    for entry in &parsed.tool_hooks.0 {
        match hook_ref(
            &krate_text,
            entry,
            "this `tool_hooks` entry of the tool",
            &own_hook_keys(),
        ) {
            Ok(h) => opts.hooks.push(h),
            Err(e) => match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            },
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    lower::tool(item, &opts)
}

pub(crate) fn hook(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = match parse_fn(item, "hook") {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
    };
    let krate = stub_crate(&attr);
    match expand_hook(attr, &item) {
        Ok(tokens) => tokens,
        Err(e) => with_stub(e, &item, Stub::Hook, &krate),
    }
}

fn expand_hook(attr: TokenStream, item: &syn::ItemFn) -> syn::Result<TokenStream> {
    let metas = NestedMeta::parse_meta_list(attr)?;
    keys::check(&metas, "`#[hook(...)]`", &hook_keys())?;
    let parsed = HookAttr::from_list(&metas).map_err(syn::Error::from)?;
    let mut opts = HookOptions::new(krate::hookwire(parsed.krate));
    opts.matcher = parsed.matcher;
    if let Some(lit) = &parsed.on_failure {
        opts.on_failure = FailurePolicy::from_str(&lit.value())
            .map_err(|e| keys::unknown_value(lit, "on_failure", &e))?;
    }
    if let Some(lit) = &parsed.timeout_ms {
        let ms = lit.base10_parse::<u64>().map_err(|_| {
            syn::Error::new(
                lit.span(),
                "`timeout_ms` must be a whole number of milliseconds: expected `timeout_ms = 500`",
            )
        })?;
        opts.timeout_ms = Some((ms, lit.span()));
    }
    opts.name = parsed.name.map(|n| n.value());
    lower::hook(item, &opts)
}
