//! The one way user text enters generated files outside string literals:
//! comments and doc comments.
//!
//! Code is built with `quote!` (user strings become escaped literals) and
//! printed by prettyplease, which prints a `#[doc = "..."]` attribute as a
//! `///` or `/** */` comment holding the text as it is. rustc then rejects
//! a bare carriage return in a doc comment and (deny by default) a
//! character that changes the direction of text in any comment, and a line
//! break in a `//` line comment would end it. So every doc attribute of
//! generated code goes through [`safe_docs`], and every other comment
//! through [`comment_text`].

use proc_macro2::{Delimiter, Group, Literal, TokenStream, TokenTree};

/// Characters rustc rejects in comments (`text_direction_codepoint_in_comment`)
/// or that read as line breaks, besides control characters. Diagnostics
/// escape the same characters (`diag::escape`).
pub(crate) fn unsafe_in_comment(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// `text` made safe for a comment: carriage returns become line breaks (a
/// CR LF pair one), and, if `one_line`, line breaks are written `\n`;
/// other control and text-direction characters are written as escapes
/// (`\u{202e}`). Tabs stay.
pub(crate) fn comment_text(text: &str, one_line: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let c = if c == '\r' {
            if chars.peek() == Some(&'\n') {
                continue;
            }
            '\n'
        } else {
            c
        };
        match c {
            '\n' if one_line => out.push_str("\\n"),
            '\n' | '\t' => out.push(c),
            c if unsafe_in_comment(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// `tokens` with the text of every `#[doc = "..."]` (and `#![doc = ..]`)
/// passed through [`comment_text`] (line breaks stay: prettyplease prints
/// them as a block comment), at any depth.
pub(crate) fn safe_docs(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let inner = match doc_text(&g) {
                    Some(text) if g.delimiter() == Delimiter::Bracket => {
                        let lit = Literal::string(&comment_text(&text, false));
                        quote::quote!(doc = #lit)
                    }
                    _ => safe_docs(g.stream()),
                };
                let mut group = Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            other => other,
        })
        .collect()
}

/// The text of `doc = "..."`, if that is what `group` holds.
fn doc_text(group: &Group) -> Option<String> {
    let mut tokens = group.stream().into_iter();
    match (tokens.next(), tokens.next(), tokens.next(), tokens.next()) {
        (
            Some(TokenTree::Ident(i)),
            Some(TokenTree::Punct(p)),
            Some(TokenTree::Literal(l)),
            None,
        ) if i == "doc" && p.as_char() == '=' => {
            syn::parse2::<syn::LitStr>(TokenTree::Literal(l).into())
                .ok()
                .map(|s| s.value())
        }
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn comments_keep_text_and_lose_what_breaks_them() {
        assert_eq!(comment_text("a\r\nb\rc", false), "a\nb\nc");
        assert_eq!(comment_text("a\nfn evil() {}", true), "a\\nfn evil() {}");
        assert_eq!(
            comment_text("x\u{202e}y\u{7}\tz", true),
            "x\\u{202e}y\\u{7}\tz"
        );
        assert_eq!(comment_text("Café \"q\" */", true), "Café \"q\" */");
    }

    #[test]
    fn doc_attributes_are_cleaned_at_any_depth() {
        let doc = "one\rtwo \u{202e}";
        let tokens = quote::quote! {
            #[doc = #doc]
            pub struct A { #[doc = #doc] x: u8 }
        };
        let file: syn::File = syn::parse2(safe_docs(tokens)).unwrap();
        let text = prettyplease::unparse(&file);
        assert!(!text.contains(['\r', '\u{202e}']), "{text:?}");
        assert_eq!(text.matches("two \\u{202e}").count(), 2, "{text}");
    }
}
