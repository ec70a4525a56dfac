//! Small token helpers of the emitter: paths and expressions parsed from
//! the spec's text at a span, `where` bounds, literals.

use super::*;

pub(super) fn parse_path(text: &str, what: &str, span: Span) -> syn::Result<syn::Type> {
    syn::parse_str::<syn::Type>(text)
        .map(|ty| respan_type(ty, span))
        .map_err(|e| syn::Error::new(span, format!("invalid {what} type `{text}`: {e}")))
}

/// [`parse_path`], respanning only when the front end gave a span.
pub(crate) fn parse_path_at(
    text: &str,
    what: &str,
    info: &crate::spec::SpanInfo,
) -> syn::Result<syn::Type> {
    match info {
        Some(span) => parse_path(text, what, *span),
        None => syn::parse_str::<syn::Type>(text).map_err(|e| {
            syn::Error::new(
                Span::call_site(),
                format!("invalid {what} type `{text}`: {e}"),
            )
        }),
    }
}

/// The type a spec reference names: the front end's tokens when it has
/// them (the macro's own path, not written out and parsed again), else its
/// text parsed; respanned on the reference when it has a span, as
/// [`parse_path_at`] does.
pub(crate) fn ref_type(
    text: &str,
    tokens: &crate::spec::PathTokens,
    what: &str,
    info: &crate::spec::SpanInfo,
) -> syn::Result<syn::Type> {
    let Some(tokens) = tokens else {
        return parse_path_at(text, what, info);
    };
    let span = info.unwrap_or_else(Span::call_site);
    let ty = syn::parse2::<syn::Type>(tokens.clone())
        .map_err(|e| syn::Error::new(span, format!("invalid {what} type `{text}`: {e}")))?;
    Ok(match info {
        Some(span) => respan_type(ty, *span),
        None => ty,
    })
}

pub(super) fn parse_expr(text: &str, what: &str, span: Span) -> syn::Result<syn::Expr> {
    syn::parse_str::<syn::Expr>(text)
        .map_err(|e| syn::Error::new(span, format!("invalid {what} expression `{text}`: {e}")))
}

pub(super) fn respan_type(ty: syn::Type, span: Span) -> syn::Type {
    syn::parse2(bound(span, quote!(#ty))).unwrap_or(ty)
}

/// Tokens (a `where` predicate, a type) whose every token, nested ones
/// included, carries `span` (the user's path), so that rustc reports an
/// unmet bound there and not on the whole macro call (a predicate mixing
/// spans is reported at the call site).
pub(crate) fn bound(span: Span, predicate: TokenStream) -> TokenStream {
    predicate
        .into_iter()
        .map(|mut tt| {
            respan_tree(&mut tt, span);
            tt
        })
        .collect()
}

pub(super) fn respan_tree(tt: &mut proc_macro2::TokenTree, span: Span) {
    if let proc_macro2::TokenTree::Group(g) = tt {
        let inner: TokenStream = g
            .stream()
            .into_iter()
            .map(|mut t| {
                respan_tree(&mut t, span);
                t
            })
            .collect();
        let mut group = proc_macro2::Group::new(g.delimiter(), inner);
        group.set_span(span);
        *g = group;
    } else {
        tt.set_span(span);
    }
}

pub(super) fn span_of(span: &crate::spec::SpanInfo) -> Span {
    span.unwrap_or_else(Span::call_site)
}

pub(super) fn usize_lit(n: u64, what: &str, span: Span) -> syn::Result<Literal> {
    usize::try_from(n)
        .map(Literal::usize_suffixed)
        .map_err(|_| syn::Error::new(span, format!("`{what}` is too large: {n}")))
}

pub(super) fn source_tokens(krate: &syn::Path, source: ToolSource) -> TokenStream {
    match source {
        ToolSource::Mcp => quote!(#krate::ToolSource::Mcp),
        ToolSource::Function => quote!(#krate::ToolSource::Function),
        ToolSource::Agent => quote!(#krate::ToolSource::Agent),
        ToolSource::Runtime => quote!(#krate::ToolSource::Runtime),
    }
}

pub(super) fn str_lit(s: &str) -> Literal {
    Literal::string(s)
}
