//! The entries of `#[agent(...)]`'s lists (`function_tools`, `agents`,
//! `tool_hooks`, `hooks`): `path` or `path(key = value, ..)`, each read
//! into its part of the spec.

use super::*;

/// One entry of a list key: `path` or `path(key = value, ...)`.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(super) path: syn::Path,
    pub(super) args: Vec<NestedMeta>,
}

/// A list of entries, written `key = [a, b(..)]` or `key(a, b(..))`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Entries(pub(crate) Vec<Entry>);

impl Entries {
    pub(super) fn from_metas<'a>(
        metas: impl IntoIterator<Item = &'a syn::Meta>,
    ) -> darling::Result<Self> {
        metas
            .into_iter()
            .map(|meta| match meta {
                syn::Meta::Path(path) => Ok(Entry {
                    path: path.clone(),
                    args: Vec::new(),
                }),
                syn::Meta::List(list) => Ok(Entry {
                    path: list.path.clone(),
                    args: NestedMeta::parse_meta_list(list.tokens.clone())?,
                }),
                syn::Meta::NameValue(nv) => Err(darling::Error::custom(
                    "expected a path such as `audit` or `audit(match = \"read_*\")`",
                )
                .with_span(nv)),
            })
            .collect::<darling::Result<Vec<_>>>()
            .map(Entries)
    }

    pub(super) fn from_tokens(tokens: TokenStream, span: Span) -> darling::Result<Self> {
        let array = syn::parse2::<proc_macro2::Group>(tokens)
            .ok()
            .filter(|g| g.delimiter() == proc_macro2::Delimiter::Bracket)
            .ok_or_else(|| {
                darling::Error::custom("expected a list in brackets: `[a, b(..)]`").with_span(&span)
            })?;
        let metas = Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated
            .parse2(array.stream())
            .map_err(darling::Error::from)?;
        Self::from_metas(&metas)
    }
}

impl FromMeta for Entries {
    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let metas = items
            .iter()
            .map(|item| match item {
                NestedMeta::Meta(m) => Ok(m.clone()),
                other => Err(darling::Error::custom(
                    "expected a path such as `audit` or `audit(match = \"read_*\")`",
                )
                .with_span(other)),
            })
            .collect::<darling::Result<Vec<_>>>()?;
        Self::from_metas(&metas)
    }

    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        Self::from_tokens(expr.to_token_stream(), expr.span())
    }

    fn from_invalid_expr(value: &darling::ast::MetaNameValueInvalidExpr) -> darling::Result<Self> {
        Self::from_tokens(value.value.clone(), value.path.span())
    }
}

/// `tools(server = ["glob", ..], ..)`.
#[derive(Debug, Clone, Default)]
pub(super) struct McpTools(pub(super) Vec<(String, proc_macro2::Span, Vec<syn::LitStr>)>);

impl FromMeta for McpTools {
    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        items
            .iter()
            .map(|item| match item {
                NestedMeta::Meta(syn::Meta::NameValue(nv)) => {
                    let server = nv.path.get_ident().map(crate::unraw).ok_or_else(|| {
                        darling::Error::custom("expected a server name").with_span(&nv.path)
                    })?;
                    let globs = Vec::<syn::LitStr>::from_expr(&nv.value)?;
                    Ok((server, nv.path.span(), globs))
                }
                other => Err(darling::Error::custom(
                    "expected `server = [\"glob\", ..]`, as in `tools(fs = [\"read_*\"])`",
                )
                .with_span(other)),
            })
            .collect::<darling::Result<Vec<_>>>()
            .map(McpTools)
    }
}

#[derive(Debug, FromMeta)]
pub(super) struct HookEntryAttr {
    #[darling(default, rename = "match")]
    pub(super) matcher: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) on_failure: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) timeout_ms: Option<syn::Lit>,
}

#[derive(Debug, FromMeta)]
pub(super) struct ToolEntryAttr {
    #[darling(default)]
    pub(super) name: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) tool_hooks: Entries,
    /// `available = path`: the agent's rule for the tool, a
    /// `fn(&StepView) -> bool`, besides the tool's own.
    #[darling(default)]
    pub(super) available: Option<crate::tool_hook::AvailableAttr>,
    /// `instruction = "text"` or `instruction = path`: what the agent adds
    /// to the system prompt for the tool.
    #[darling(default)]
    pub(super) instruction: Option<crate::tool_hook::InstructionAttr>,
}

#[derive(Debug, FromMeta)]
pub(super) struct AgentEntryAttr {
    #[darling(default)]
    pub(super) name: Option<syn::LitStr>,
    /// `output = path`: the child's output extractor.
    #[darling(default)]
    pub(super) output: Option<syn::Path>,
    /// `on_error = path`: what the parent model reads when a call fails.
    #[darling(default)]
    pub(super) on_error: Option<syn::Path>,
    /// `meta(risk = "high")`: the metadata of the child's tool.
    #[darling(default)]
    pub(super) meta: Option<crate::tool_hook::MetaAttr>,
}

#[derive(Debug, FromMeta)]
pub(super) struct EventHookAttr {
    pub(super) tool_name: syn::LitStr,
    #[darling(default)]
    pub(super) toolset_name: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) arguments: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) frequency: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) ttl_minutes: Option<syn::Lit>,
    #[darling(default)]
    pub(super) name: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) timeout_sec: Option<syn::Lit>,
}

pub(super) fn entry_args<T: FromMeta>(entry: &Entry, what: &str, known: &[&str]) -> syn::Result<T> {
    keys::check(&entry.args, what, known)?;
    T::from_list(&entry.args).map_err(syn::Error::from)
}

/// A hook entry (`audit`, `guard(match = "write_*", on_failure = "open")`)
/// with the options `known` allows.
pub(crate) fn hook_ref(
    krate: &str,
    entry: &Entry,
    what: &str,
    known: &[&str],
) -> syn::Result<HookRef> {
    let attr: HookEntryAttr = entry_args(entry, what, known)?;
    let mut hook = HookRef::new(checked(krate, &entry.path)).with_label(last_name(&entry.path));
    hook.span = Some(entry.path.span());
    hook.tokens = Some(entry.path.to_token_stream());
    if let Some(m) = &attr.matcher {
        hook.match_span = Some(m.span());
        hook = hook.with_match(&m.value()).map_err(|e| {
            syn::Error::new(
                m.span(),
                format!(
                    "invalid `match` pattern for hook `{}`: {e}; expected a tool name, `a|b`, a `*` glob, `/regex/`, `source:mcp` or `meta:key=value`",
                    path_text(&entry.path)
                ),
            )
        })?;
    }
    let (policy, timeout_ms) = policy_and_timeout(&attr.on_failure, &attr.timeout_ms)?;
    if let Some(policy) = policy {
        hook = hook.with_policy(policy);
    }
    hook.timeout_ms = timeout_ms;
    Ok(hook)
}

/// An entry's `on_failure` and `timeout_ms`, checked.
fn policy_and_timeout(
    on_failure: &Option<syn::LitStr>,
    timeout_ms: &Option<syn::Lit>,
) -> syn::Result<(Option<FailurePolicy>, Option<u64>)> {
    let policy = on_failure
        .as_ref()
        .map(|p| {
            FailurePolicy::from_str(&p.value()).map_err(|e| unknown_value(p, "on_failure", &e))
        })
        .transpose()?;
    let timeout_ms = timeout_ms
        .as_ref()
        .map(|t| positive(t, "timeout_ms", "500"))
        .transpose()?;
    Ok((policy, timeout_ms))
}

/// Whether a `hooks` entry names a type (a lifecycle hook) rather than an
/// event: a path with several segments, or one that starts with an
/// uppercase letter. Events are snake_case (`on_request_start`).
pub(super) fn is_type_path(path: &syn::Path) -> bool {
    path.segments.len() > 1 || last_name(path).starts_with(|c: char| c.is_ascii_uppercase())
}

/// A lifecycle hook entry: `NoShell` or `NoShell(match = "shell|exec",
/// on_failure = "open", timeout_ms = 50)`.
pub(super) fn lifecycle_ref(entry: &Entry) -> syn::Result<LifecycleRef> {
    let attr: LifecycleEntryAttr =
        entry_args(entry, "this lifecycle hook entry", &LIFECYCLE_OPTIONS)?;
    let mut hook = LifecycleRef::new(path_text(&entry.path));
    hook.span = Some(entry.path.span());
    hook.tokens = Some(entry.path.to_token_stream());
    if let Some(m) = &attr.matcher {
        hook.match_span = Some(m.span());
        hook.matcher = Matcher::parse(&m.value()).map_err(|e| {
            syn::Error::new(
                m.span(),
                format!(
                    "invalid `match` pattern for lifecycle hook `{}`: {e}; expected a tool name, `a|b`, a `*` glob, `/regex/`, `source:mcp` or `meta:key=value`",
                    path_text(&entry.path)
                ),
            )
        })?;
    }
    (hook.policy, hook.timeout_ms) = policy_and_timeout(&attr.on_failure, &attr.timeout_ms)?;
    Ok(hook)
}

#[derive(Debug, Default, FromMeta)]
pub(super) struct LifecycleEntryAttr {
    #[darling(default, rename = "match")]
    pub(super) matcher: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) on_failure: Option<syn::LitStr>,
    #[darling(default)]
    pub(super) timeout_ms: Option<syn::Lit>,
}

pub(super) fn event_hook(entry: &Entry) -> syn::Result<EventHookSpec> {
    let event_name = last_name(&entry.path);
    let event = HookEvent::from_str(&event_name).map_err(|e| {
        let hint = keys::did_you_mean(&event_name, e.expected.iter().copied())
            .map(|k| format!("did you mean `{k}`? "))
            .unwrap_or_default();
        syn::Error::new(
            entry.path.span(),
            format!(
                "unknown hook event `{event_name}`: {hint}expected one of {}",
                e.expected
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })?;
    let attr: EventHookAttr = entry_args(entry, "this `hooks` entry", EVENT_HOOK_KEYS)?;
    let arguments = match &attr.arguments {
        Some(a) => {
            let text = a.value();
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(serde_json::Value::Object(_)) => text,
                _ => {
                    return Err(syn::Error::new(
                        a.span(),
                        "`arguments` must be a JSON object: expected `arguments = r#\"{\"key\": \"value\"}\"#`",
                    ));
                }
            }
        }
        None => "{}".to_owned(),
    };
    let frequency = match &attr.frequency {
        Some(f) => {
            Frequency::from_str(&f.value()).map_err(|e| unknown_value(f, "frequency", &e))?
        }
        None => Frequency::default(),
    };
    let refresh_condition = match &attr.ttl_minutes {
        Some(t) => Some(RefreshCondition::Ttl {
            ttl_minutes: positive(t, "ttl_minutes", "5")?,
        }),
        None => None,
    };
    let timeout_sec = attr
        .timeout_sec
        .as_ref()
        .map(|t| positive(t, "timeout_sec", "10"))
        .transpose()?;
    Ok(EventHookSpec {
        event,
        name: attr.name.map(|n| n.value()),
        timeout_sec,
        action: EventHookAction::ToolCall(ToolCallInjection {
            toolset_name: attr.toolset_name.map(|t| t.value()),
            tool_name: attr.tool_name.value(),
            arguments,
            frequency,
            refresh_condition,
        }),
        span: Some(entry.path.span()),
    })
}

pub(super) const LIST_KEYS: &[&str] = &[
    "function_tools",
    "agents",
    "tool_hooks",
    "hooks",
    "coverage",
];

/// Takes the `key = [..]` items of the list keys out of the attribute.
///
/// They are parsed here rather than by darling because an entry such as
/// `guard(match = "read_*")` is not a Rust expression (`match` is a
/// keyword), and darling parses `key = value` values as expressions.
#[allow(clippy::type_complexity)]
pub(super) fn split_lists(
    attr: TokenStream,
) -> syn::Result<(TokenStream, Vec<(String, Span, Entries)>)> {
    use proc_macro2::{Delimiter, TokenTree};
    let mut chunks: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for tt in attr {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => chunks.push(Vec::new()),
            _ => {
                if let Some(last) = chunks.last_mut() {
                    last.push(tt);
                }
            }
        }
    }
    let mut rest = TokenStream::new();
    let mut lists = Vec::new();
    for chunk in chunks {
        if chunk.is_empty() {
            continue;
        }
        if let [
            TokenTree::Ident(key),
            TokenTree::Punct(eq),
            TokenTree::Group(g),
        ] = chunk.as_slice()
            && eq.as_char() == '='
            && g.delimiter() == Delimiter::Bracket
            && LIST_KEYS.contains(&key.to_string().as_str())
        {
            let entries = Entries::from_tokens(TokenTree::Group(g.clone()).into(), g.span())
                .map_err(syn::Error::from)?;
            lists.push((key.to_string(), key.span(), entries));
            continue;
        }
        if !rest.is_empty() {
            rest.extend([TokenTree::Punct(proc_macro2::Punct::new(
                ',',
                proc_macro2::Spacing::Alone,
            ))]);
        }
        rest.extend(chunk);
    }
    Ok((rest, lists))
}
