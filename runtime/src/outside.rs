//! Text from outside (a server's stderr, an error body, a tool's result,
//! a model's arguments), bounded and made safe before it reaches the
//! model, the trace, spans, logs or a terminal.
//!
//! Two rules, one function ([`clean`], or [`clean_tail`] to keep the end):
//!
//! * **Bounded**: at most a limit of bytes is kept; the rest is cut on a
//!   character boundary and replaced by a visible marker,
//!   `…[truncated N bytes]` (`N`: the bytes of the original text left out).
//! * **Safe**: control characters other than `\n` and `\t` (C0, DEL, C1:
//!   ESC, `\r`, backspace, ...) and the bidirectional controls (U+202A to
//!   U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C) are written as
//!   escapes, `\u{1b}`, `\u{202e}`: they cannot move a terminal's cursor,
//!   recolour it, or reorder what a reader sees.
//!
//! The limits (in bytes of the cleaned text, before the marker):
//!
//! | text | limit |
//! |---|---|
//! | the stderr of an MCP server, in an error result or a status | [`MCP_STDERR_LIMIT`] (4 KiB, its end) |
//! | a service's error body or message, in a [`ModelError`](crate::model::ModelError) or an MCP error result | [`ERROR_BODY_LIMIT`] (2 KiB) |
//! | one content attribute of a span (feature `otel`, under `CaptureContent`) | [`SPAN_CONTENT_LIMIT`] (16 KiB) |
//! | a line of a log, and what the terminal approver shows | [`DISPLAY_LIMIT`] (4 KiB) |

use std::fmt::Write as _;

/// The most of an MCP server's stderr kept for an error message (its
/// last bytes).
pub const MCP_STDERR_LIMIT: usize = 4 * 1024;

/// The most of a service's error body (or error message) kept in an error.
pub const ERROR_BODY_LIMIT: usize = 2 * 1024;

/// The most of one content attribute recorded on a span.
pub const SPAN_CONTENT_LIMIT: usize = 16 * 1024;

/// The most of one outside text shown in a log line or at the terminal.
pub const DISPLAY_LIMIT: usize = 4 * 1024;

/// Whether `c` is written as an escape: a control character other than
/// `\n` and `\t`, or a bidirectional control.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Appends `c` to `out`, as an escape if it [is unsafe](is_unsafe).
fn push_safe(out: &mut String, c: char) {
    if is_unsafe(c) {
        let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
    } else {
        out.push(c);
    }
}

/// How many bytes `c` takes once made safe.
fn safe_len(c: char) -> usize {
    if is_unsafe(c) {
        // `\u{` + hex digits + `}`.
        let digits = format!("{:x}", u32::from(c)).len();
        4 + digits
    } else {
        c.len_utf8()
    }
}

/// The marker put where text was cut.
fn marker(dropped: usize) -> String {
    format!("…[truncated {dropped} bytes]")
}

/// `text` made safe, cut after `limit` bytes (of the safe text) with a
/// marker saying how many bytes of `text` were left out.
///
/// ```
/// use hookwire::outside::clean;
/// assert_eq!(clean("a\u{1b}[31mb\u{202e}c\n", 100), "a\\u{1b}[31mb\\u{202e}c\n");
/// assert_eq!(clean("héllo world", 3), "hé…[truncated 9 bytes]");
/// ```
pub fn clean(text: &str, limit: usize) -> String {
    if text.len() <= limit && !text.chars().any(is_unsafe) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len().min(limit) + 32);
    for (at, c) in text.char_indices() {
        if out.len() + safe_len(c) > limit {
            out.push_str(&marker(text.len() - at));
            return out;
        }
        push_safe(&mut out, c);
    }
    out
}

/// `text` made safe, keeping its last `limit` bytes (of the safe text)
/// after a marker saying how many bytes of `text` were left out.
///
/// ```
/// use hookwire::outside::clean_tail;
/// assert_eq!(clean_tail("first lines\nlast", 4), "…[truncated 12 bytes]last");
/// ```
pub fn clean_tail(text: &str, limit: usize) -> String {
    clean_tail_after(text, limit, 0)
}

/// [`clean_tail`] of a text that had `dropped` bytes before it already
/// (counted in the marker).
pub(crate) fn clean_tail_after(text: &str, limit: usize, dropped: usize) -> String {
    if dropped == 0 && text.len() <= limit && !text.chars().any(is_unsafe) {
        return text.to_owned();
    }
    let mut kept = 0;
    let mut from = text.len();
    for (at, c) in text.char_indices().rev() {
        if kept + safe_len(c) > limit {
            break;
        }
        kept += safe_len(c);
        from = at;
    }
    let mut out = String::with_capacity(kept + 32);
    if from + dropped > 0 {
        out.push_str(&marker(from + dropped));
    }
    for c in text[from..].chars() {
        push_safe(&mut out, c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_are_bounded_and_marked() {
        let big = "x".repeat(10_000);
        let out = clean(&big, 100);
        assert_eq!(out, format!("{}…[truncated 9900 bytes]", "x".repeat(100)));
        let out = clean_tail(&big, 100);
        assert_eq!(out, format!("…[truncated 9900 bytes]{}", "x".repeat(100)));
        // Escapes count against the limit: the result never grows past it.
        let hostile = "\u{202e}".repeat(1000);
        let out = clean(&hostile, 50);
        assert!(out.len() < 50 + 40, "{out}");
        assert!(!out.contains('\u{202e}'));
        assert!(out.ends_with("…[truncated 2982 bytes]"), "{out}");
    }

    #[test]
    fn only_unsafe_characters_are_escaped() {
        assert_eq!(clean("tab\tline\n", 100), "tab\tline\n");
        assert_eq!(
            clean("\r\u{7f}\u{9b}\u{2067}\u{200f}", 100),
            "\\u{d}\\u{7f}\\u{9b}\\u{2067}\\u{200f}"
        );
        assert_eq!(clean("日本語", 100), "日本語");
    }
}
