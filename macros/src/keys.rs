//! Attribute keys: an unknown key is an error on that key, with the
//! nearest known key as a suggestion and the list of valid keys.

use darling::ast::NestedMeta;
use syn::spanned::Spanned;

/// The edit distance between two short strings.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known key nearest to `key`, if it is close enough to be a typo.
pub(crate) fn did_you_mean<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (distance(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The key of one attribute item (`name = ..`, `name(..)`, `name`).
pub(crate) fn key_of(meta: &NestedMeta) -> Option<(String, proc_macro2::Span)> {
    let path = match meta {
        NestedMeta::Meta(m) => m.path(),
        NestedMeta::NameValueInvalidExpr(nv) => &nv.path,
        NestedMeta::Lit(_) => return None,
    };
    let key = path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::");
    Some((key, path.span()))
}

/// Checks every key of `where_` (`` `#[tool(...)]` ``, `` this `tool_hooks` entry ``)
/// against `known`.
pub(crate) fn check(metas: &[NestedMeta], where_: &str, known: &[&str]) -> syn::Result<()> {
    let mut errors: Option<syn::Error> = None;
    let mut seen = Vec::new();
    for meta in metas {
        let error = match key_of(meta) {
            None => Some(syn::Error::new(
                meta.span(),
                format!(
                    "unexpected literal in {where_}: expected `key = value` with a key among {}",
                    list(known)
                ),
            )),
            Some((key, span)) if !known.contains(&key.as_str()) => {
                let hint = match did_you_mean(&key, known) {
                    Some(k) => format!("did you mean `{k}`? "),
                    None => String::new(),
                };
                Some(syn::Error::new(
                    span,
                    format!(
                        "unknown key `{key}` in {where_}: {hint}expected one of {}",
                        list(known)
                    ),
                ))
            }
            Some((key, span)) if seen.contains(&key) => Some(syn::Error::new(
                span,
                format!("duplicate key `{key}` in {where_}: give each key once"),
            )),
            Some((key, _)) => {
                seen.push(key);
                None
            }
        };
        if let Some(e) = error {
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    errors.map_or(Ok(()), Err)
}

fn list(known: &[&str]) -> String {
    known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_keys_only() {
        let known = ["name", "description", "strict", "crate"];
        assert_eq!(did_you_mean("nmae", &known), Some("name"));
        assert_eq!(did_you_mean("descripton", &known), Some("description"));
        assert_eq!(did_you_mean("strcit", &known), Some("strict"));
        assert_eq!(did_you_mean("banana", &known), None);
    }
}
