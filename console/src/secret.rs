//! The console's secrets and the checks on them: random tokens from the
//! OS, compared in constant time; and HTML escaping for what the server
//! writes into its page.

/// `bytes` random bytes from the OS, as lowercase hex.
pub(crate) fn random_hex(bytes: usize) -> Result<String, getrandom::Error> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `given` is `expected`, in time that does not depend on where
/// they differ (only on their lengths, which are not secret: every token
/// of a console has the same length).
pub(crate) fn same(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    let diff = given
        .iter()
        .zip(expected)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    // Read through `black_box`, so that the fold is not cut short.
    std::hint::black_box(diff) == 0
}

/// `text` escaped for HTML text and double-quoted attribute values.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abcd", b"abcd"));
        assert!(!same(b"abce", b"abcd"));
        assert!(!same(b"abc", b"abcd"));
        assert!(!same(b"", b"abcd"));
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(
            escape_html(r#"<img src=x onerror="a('b')">&"#),
            "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;"
        );
    }
}
