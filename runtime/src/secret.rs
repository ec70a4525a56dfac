//! Secrets: API keys, bearer tokens, header values and environment values
//! of a configuration, held as [`Secret`] (its `Debug` prints
//! `[redacted]`, and it has no `Display`), and [`redact`], which takes
//! secrets out of a text that came back from a service (an error body
//! that echoes the request's headers) before it is kept.
//!
//! Every configuration that holds a key or token keeps it as a [`Secret`]:
//! `OpenAiConfig` and `ProviderConfig`
//! (`api_key`), and an MCP server's `Transport` (header values, which
//! hold bearer tokens, and a stdio server's environment values). Code that
//! must send the value asks for it with [`Secret::expose`].

use std::fmt;

/// A value that must not be printed: `{:?}` shows `[redacted]`, and there
/// is no `Display`. [`expose`](Self::expose) gives the value to the code
/// that sends it.
///
/// ```
/// use hookwire::secret::Secret;
/// let key = Secret::new("sk-live-123");
/// assert_eq!(format!("{key:?}"), "[redacted]");
/// assert_eq!(key.expose(), "sk-live-123");
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Secret(Box<str>);

impl Secret {
    /// A secret holding `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into().into_boxed_str())
    }

    /// The value, for the code that sends it. Never log or print it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the value is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self::new(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self::new(value)
    }
}

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Known secrets shorter than this are not searched for in a text by
/// [`redact`] (every `k` of a text is not a key); the header-like patterns
/// still mask them.
pub const MIN_SECRET_LEN: usize = 4;

/// Header names whose values [`redact`] masks wherever they appear as
/// `name: value`, `name=value` or `"name": "value"` (any case).
const SECRET_NAMES: &[&str] = &[
    "proxy-authorization",
    "authorization",
    "x-goog-api-key",
    "x-api-key",
    "api-key",
    "api_key",
    "apikey",
    "access_token",
    "cookie",
];

/// `text` with every known secret value (of at least [`MIN_SECRET_LEN`]
/// bytes) replaced by `[redacted]`, and the values of header-like patterns
/// masked: `authorization: ...`, `x-api-key: ...` (and the other names a
/// key travels under, in header, query or JSON form) and `Bearer <token>`
/// (a token: 12 characters or more, or not only letters), in any case. Over-masking is preferred to a leak: a masked value runs
/// to the end of its quotes, or else to the end of its line or to `,` `;`
/// `}` `&`.
///
/// ```
/// use hookwire::secret::redact;
/// let body = r#"{"echo": {"Authorization": "Bearer sk-1", "x-api-key": "sk-2"}} sk-3"#;
/// let out = redact(body, &["sk-3"]);
/// assert_eq!(out, r#"{"echo": {"Authorization": "[redacted]", "x-api-key": "[redacted]"}} [redacted]"#);
/// assert_eq!(redact("auth failed for bearer abc.def", &[]), "auth failed for bearer [redacted]");
/// ```
pub fn redact(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        if secret.len() >= MIN_SECRET_LEN && out.contains(secret) {
            out = out.replace(secret, REDACTED);
        }
    }
    let mut ranges = header_values(&out);
    ranges.extend(bearer_tokens(&out));
    if ranges.is_empty() {
        return out;
    }
    ranges.sort_unstable();
    let mut masked = String::with_capacity(out.len());
    let mut at = 0;
    for (start, end) in ranges {
        if end <= at {
            continue;
        }
        let start = start.max(at);
        masked.push_str(&out[at..start]);
        masked.push_str(REDACTED);
        at = end;
    }
    masked.push_str(&out[at..]);
    masked
}

/// Whether the byte before `at` (if any) ends a word, so that a name found
/// at `at` is a name and not the end of a longer one.
fn starts_word(bytes: &[u8], at: usize) -> bool {
    at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_')
}

/// The byte ranges of the values of `SECRET_NAMES` in `text`.
fn header_values(text: &str) -> Vec<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut out = Vec::new();
    for name in SECRET_NAMES {
        let mut from = 0;
        while let Some(found) = lower[from..].find(name) {
            let at = from + found;
            from = at + name.len();
            if !starts_word(bytes, at) {
                continue;
            }
            let mut i = from;
            let skip = |i: &mut usize, set: &[u8]| {
                while *i < bytes.len() && set.contains(&bytes[*i]) {
                    *i += 1;
                }
            };
            skip(&mut i, b"\"'\\ \t");
            if i >= bytes.len() || !matches!(bytes[i], b':' | b'=') {
                continue;
            }
            i += 1;
            skip(&mut i, b" \t");
            let quoted = i < bytes.len() && matches!(bytes[i], b'"' | b'\'' | b'\\');
            skip(&mut i, b"\"'\\");
            let start = i;
            let stops: &[u8] = if quoted {
                b"\"'\\\n\r"
            } else {
                b"\n\r,;}&\"'\\"
            };
            while i < bytes.len() && !stops.contains(&bytes[i]) {
                i += 1;
            }
            let value = &text[start..i];
            if !value.trim().is_empty() && value.trim() != REDACTED {
                out.push((start, i));
            }
        }
    }
    out
}

/// The byte ranges of the tokens after `bearer ` in `text`.
fn bearer_tokens(text: &str) -> Vec<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = lower[from..].find("bearer") {
        let at = from + found;
        from = at + "bearer".len();
        if !starts_word(bytes, at) {
            continue;
        }
        let mut i = from;
        let spaces = i;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        if i == spaces {
            continue;
        }
        let start = i;
        while i < bytes.len()
            && (bytes[i].is_ascii_alphanumeric() || b"-._~+/=".contains(&bytes[i]))
        {
            i += 1;
        }
        // A token, not a word of a sentence ("missing bearer token"): long,
        // or not only letters.
        let token = &text[start..i];
        if token.len() >= 12 || token.bytes().any(|b| !b.is_ascii_alphabetic()) {
            out.push((start, i));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms_are_masked() {
        for (text, want) in [
            (
                "authorization: Bearer sk-abc\nnext",
                "authorization: [redacted]\nnext",
            ),
            ("X-Api-Key: sk-ant-1", "X-Api-Key: [redacted]"),
            (
                r#"{\"x-api-key\":\"sk-ant-1\"}"#,
                r#"{\"x-api-key\":\"[redacted]\"}"#,
            ),
            ("url?api_key=s3cr3t&x=1", "url?api_key=[redacted]&x=1"),
            ("BEARER tok-1", "BEARER [redacted]"),
            ("no secrets here: ok", "no secrets here: ok"),
            ("my_authorization: x", "my_authorization: x"),
            ("unbearer x", "unbearer x"),
            (
                "missing or wrong bearer token",
                "missing or wrong bearer token",
            ),
            ("Bearer abcdefghijklmnop", "Bearer [redacted]"),
        ] {
            assert_eq!(redact(text, &[]), want, "{text}");
        }
    }

    #[test]
    fn known_values_go_wherever_they_are() {
        assert_eq!(
            redact("echo:SECRETVALUE;again SECRETVALUE", &["SECRETVALUE", "k"]),
            "echo:[redacted];again [redacted]"
        );
    }
}
