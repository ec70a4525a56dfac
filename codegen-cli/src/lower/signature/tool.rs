//! The signature rules for tool functions, and their doc comments.

use super::*;

/// The shape the runtime accepts for a tool function, in one line.
pub const TOOL_EXPECTED: &str = "fn name(param: T, ...) -> R` or `async fn name(cx: &ToolContext, param: T, ...) -> R` where each `T: Deserialize + JsonSchema` and `R: IntoOutcome";

/// Checks that `sig` is a function the runtime can run as a tool: a free
/// function, sync or async, not generic, whose parameters are plain names
/// with owned types (each becomes a field of the argument object), and
/// optionally one `&ToolContext`. In `strict` mode no parameter may be an
/// `Option`.
///
/// Whether each parameter type is `Deserialize + JsonSchema` and whether
/// the return type is `IntoOutcome` are checked by the compiler on the
/// generated code (spanned on the user's tokens).
///
/// ```
/// let f: syn::ItemFn = syn::parse_quote! { fn add(a: i64, b: &str) -> String { todo!() } };
/// let err = hookwire_codegen::lower::check_tool(&f.sig, false).unwrap_err().to_string();
/// assert!(err.starts_with("parameter `b` of tool `add` is a reference"));
/// ```
pub fn check_tool(sig: &Signature, strict: bool) -> syn::Result<()> {
    tool_params(sig, strict).map(drop)
}

pub(crate) fn tool_params(sig: &Signature, strict: bool) -> syn::Result<Vec<ToolParam>> {
    let name = sig.ident.to_string();
    let expected = TOOL_EXPECTED;
    // A `const fn` is called like any other.
    reject_modifiers(sig, "tool", expected, true)?;
    if let ReturnType::Type(_, ty) = &sig.output
        && let Type::ImplTrait(_) = plain(ty)
    {
        return Err(syn::Error::new_spanned(
            ty,
            format!(
                "tool `{name}` cannot return `impl Trait` (its result is converted with `IntoOutcome`, which needs the type): return a concrete type such as `String`, `i64`, `ToolResult` or `Json<T>`"
            ),
        ));
    }
    if let Some(p) = sig.generics.params.first() {
        return Err(syn::Error::new_spanned(
            p,
            format!(
                "tool `{name}` cannot be generic (its argument schema must be known): expected `{expected}`"
            ),
        ));
    }
    if let Some(w) = &sig.generics.where_clause {
        return Err(syn::Error::new_spanned(
            w,
            format!("tool `{name}` cannot have a `where` clause: expected `{expected}`"),
        ));
    }
    let mut out = Vec::new();
    let mut seen_cx = false;
    for arg in typed_args(sig)? {
        let ty = &*arg.ty;
        if let Some((m, inner)) = reference(ty)
            && is_named(inner, "ToolContext")
        {
            if m {
                return Err(syn::Error::new_spanned(
                    ty,
                    format!(
                        "tool `{name}` receives the context as `&ToolContext`, not `&mut ToolContext` (only hooks may change it): expected `{expected}`"
                    ),
                ));
            }
            if seen_cx {
                return Err(syn::Error::new_spanned(
                    ty,
                    format!("tool `{name}` takes the context twice: expected `{expected}`"),
                ));
            }
            if let Some(attr) = arg.attrs.iter().find(|a| is_default_attr(a)) {
                return Err(syn::Error::new_spanned(
                    attr,
                    format!(
                        "the context parameter of tool `{name}` is not an argument the model sends, so it cannot have a default: remove `#[default(..)]`"
                    ),
                ));
            }
            seen_cx = true;
            out.push(ToolParam::Context);
            continue;
        }
        if let Some(attr) = arg
            .attrs
            .iter()
            .find(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
        {
            return Err(syn::Error::new_spanned(
                attr,
                format!(
                    "a parameter of tool `{name}` cannot be behind `#[cfg(..)]` (the argument schema lists it either way): remove the attribute, or make the parameter an `Option<T>`"
                ),
            ));
        }
        let ident = match &*arg.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    format!(
                        "a parameter of tool `{name}` must be a plain name (it becomes the JSON field of that name), found `{}`: expected `{expected}`",
                        show(other)
                    ),
                ));
            }
        };
        let default = param_default(&arg.attrs, &name, &ident, &arg.ty, strict)?;
        if unraw_str(&ident).starts_with(RESERVED) {
            return Err(syn::Error::new_spanned(
                &ident,
                format!(
                    "parameter `{ident}` of tool `{name}` starts with `{RESERVED}`, which names the code generated for the tool: rename the parameter"
                ),
            ));
        }
        if let Some(inner) = dep_inner(ty) {
            if let Some((attr, _)) = &default {
                return Err(syn::Error::new_spanned(
                    attr,
                    format!(
                        "parameter `{ident}` of tool `{name}` is a dependency, not an argument the model sends, so it cannot have a default: remove `#[default(..)]`"
                    ),
                ));
            }
            out.push(ToolParam::Dep {
                ident: strip_raw(&ident),
                ty: Box::new(inner.clone()),
                written: Box::new(ty.clone()),
            });
            continue;
        }
        if reference(ty).is_some() {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "parameter `{ident}` of tool `{name}` is a reference (`{}`), but tool arguments are deserialized into owned values: use an owned type such as `String` or `Vec<T>`",
                    show(ty)
                ),
            ));
        }
        if let Type::ImplTrait(_) = plain(ty) {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "parameter `{ident}` of tool `{name}` cannot be `impl Trait` (its JSON Schema must be known): use a concrete type that implements `Deserialize + JsonSchema`"
                ),
            ));
        }
        if option_inner(ty).is_some() && strict {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "strict tool `{name}` cannot take the optional parameter `{ident}: {}`: in strict mode every parameter is required, so use `{}` or drop `strict`",
                    show(ty),
                    option_inner(ty).map(show).unwrap_or_default()
                ),
            ));
        }
        let docs = arg.attrs.iter().filter_map(doc_line).collect();
        out.push(ToolParam::Arg {
            ident: strip_raw(&ident),
            ty: Box::new(ty.clone()),
            docs,
            default: default.map(|(_, expr)| Box::new(expr)),
        });
    }
    Ok(out)
}

/// Whether `attr` is a parameter's `#[default(..)]` (in any form, so
/// that a malformed one is reported, not passed through).
pub(crate) fn is_default_attr(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("default")
}

/// A parameter's default, `#[default(expr)]`: the attribute and the
/// expression, whose type is the parameter's. One per parameter; none in a
/// strict tool, where every parameter is required (a default the model can
/// never rely on would only mislead, and strict schemas cannot carry one).
fn param_default(
    attrs: &[syn::Attribute],
    name: &str,
    ident: &syn::Ident,
    ty: &syn::Type,
    strict: bool,
) -> syn::Result<Option<(syn::Attribute, syn::Expr)>> {
    let mut found = attrs.iter().filter(|a| is_default_attr(a));
    let Some(attr) = found.next() else {
        return Ok(None);
    };
    if let Some(second) = found.next() {
        return Err(syn::Error::new_spanned(
            second,
            format!(
                "parameter `{ident}` of tool `{name}` has two defaults: keep one `#[default(..)]`"
            ),
        ));
    }
    if strict {
        return Err(syn::Error::new_spanned(
            attr,
            format!(
                "strict tool `{name}` cannot give parameter `{ident}` a default: in strict mode every parameter is required, so the model always sends it; remove `#[default(..)]` or drop `strict`"
            ),
        ));
    }
    let syn::Meta::List(list) = &attr.meta else {
        return Err(syn::Error::new_spanned(
            attr,
            format!(
                "the default of parameter `{ident}` of tool `{name}` is written `#[default(value)]`, e.g. `#[default(10)]`"
            ),
        ));
    };
    if list.tokens.is_empty() {
        return Err(syn::Error::new_spanned(
            attr,
            format!(
                "the default of parameter `{ident}` of tool `{name}` is missing its value: write `#[default(value)]`, e.g. `#[default(10)]`"
            ),
        ));
    }
    let expr = list.parse_args::<syn::Expr>().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!(
                "the default of parameter `{ident}` of tool `{name}` must be one Rust expression of the parameter's type, e.g. `#[default(10)]`: {e}"
            ),
        )
    })?;
    // A literal of the wrong type, refused here so that `cardgen check`
    // refuses it too (rustc would, in the generated default function).
    if let Some(why) = super::default_value::literal_mismatch(&expr, ty) {
        return Err(syn::Error::new_spanned(
            &expr,
            format!("the default of parameter `{ident}` of tool `{name}` {why}"),
        ));
    }
    Ok(Some((attr.clone(), expr)))
}

/// The prefix of every name the generated code gives its own fields and
/// bindings.
const RESERVED: &str = "__hookwire";

fn unraw_str(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
}

/// Attributes that make a function something the generated code cannot
/// call as written: `#[test]`/`#[bench]` (and `#[tokio::test]` and kin),
/// which exist only in test builds, and `#[target_feature]`, callable only
/// where the feature is enabled.
/// A hook's function name is ASCII: a look-alike letter (the Cyrillic `а`
/// of `аudit`) or an invisible one would make a second hook that reads as
/// the first. (A tool's name is checked as a tool name: ASCII too, unless
/// `name = ".."` gives another.)
pub(crate) fn check_ascii_ident(ident: &syn::Ident, what: &str) -> syn::Result<()> {
    let name = ident.to_string();
    match crate::spec::non_ascii(&name) {
        Some(c) => Err(syn::Error::new(
            ident.span(),
            format!(
                "{what} `{name}` has U+{:04X}, which is not ASCII: name it with ASCII letters, digits and `_`, so that it is the {what} a reader sees (a look-alike or invisible character names another one)",
                u32::from(c)
            ),
        )),
        None => Ok(()),
    }
}

pub(crate) fn check_fn_attrs(attrs: &[syn::Attribute], name: &str, what: &str) -> syn::Result<()> {
    for attr in attrs {
        let path = attr.path();
        let last = path.segments.last().map(|s| s.ident.to_string());
        let shown = match &attr.meta {
            syn::Meta::Path(_) => format!("#[{}]", show(path)),
            _ => format!("#[{}(..)]", show(path)),
        };
        let advice = match last.as_deref() {
            Some("test" | "bench") => {
                "it exists only in test builds: remove the attribute, or call the tool from a separate test function"
            }
            Some("target_feature") if path.segments.len() == 1 => {
                "it can only be called where that CPU feature is enabled: move the feature-specific code into a helper the tool calls after checking `is_x86_feature_detected!` (or its kin)"
            }
            _ => continue,
        };
        return Err(syn::Error::new_spanned(
            attr,
            format!("{what} `{name}` cannot be `{shown}`: {advice}"),
        ));
    }
    Ok(())
}

pub(super) fn strip_raw(ident: &syn::Ident) -> syn::Ident {
    // Keep raw identifiers as written: `r#type` stays a valid field name.
    ident.clone()
}

/// The text of one `#[doc = "..."]` attribute.
pub(crate) fn doc_line(attr: &syn::Attribute) -> Option<String> {
    if !attr.path().is_ident("doc") {
        return None;
    }
    match &attr.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// Joins doc lines the way rustdoc shows them: one leading space dropped
/// from each line, surrounding blank lines trimmed.
pub(crate) fn join_docs(lines: &[String]) -> String {
    let text: Vec<&str> = lines
        .iter()
        .flat_map(|l| l.split('\n'))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end())
        .collect();
    text.join("\n").trim().to_owned()
}
