//! What generated agents check about themselves: their declared name, the
//! names their parents list them under, the hooks that select no tool.

use hookwire_spec::str_eq;

/// Whether `matcher` (a generated agent's compiled matcher; `None` if its
/// pattern did not compile) selects any of `tools`: what a generated
/// `Agent::hooks_selecting_none` asks of each of its hooks.
#[doc(hidden)]
pub fn selects_any(
    matcher: &Option<crate::matcher::Matcher>,
    tools: &[crate::matcher::MatchTarget<'_>],
) -> bool {
    matcher
        .as_ref()
        .is_some_and(|m| tools.iter().any(|t| m.matches(*t)))
}

/// Whether `matcher` (a generated agent's compiled matcher; `None` if its
/// pattern did not compile) selects `target`: what a generated agent's
/// lifecycle hooks with a matcher ask of each call and step.
#[doc(hidden)]
pub fn selects(
    matcher: &Option<crate::matcher::Matcher>,
    target: &crate::matcher::MatchTarget<'_>,
) -> bool {
    matcher.as_ref().is_some_and(|m| m.matches(*target))
}

/// Checks, at compile time, that a part of a hook's matcher (a `meta:`
/// part) selects a tool: `selected` holds, for each tool whose metadata the
/// agent knows only through its `Tool::META`, whether the part selects it.
/// Otherwise compilation fails with `message`.
#[doc(hidden)]
pub const fn meta_part_selects(selected: &[bool], message: &str) {
    let mut i = 0;
    while i < selected.len() {
        if selected[i] {
            return;
        }
        i += 1;
    }
    panic!("{}", message);
}

/// Checks, at compile time, that a parent lists the child agent `path`
/// under the child's declared name; otherwise compilation fails with a
/// message that says what to write.
#[doc(hidden)]
pub const fn child_agent_name(declared: &str, used: &str, path: &str) {
    if str_eq(declared, used) {
        return;
    }
    let (buf, len) = joined(&[
        "child agent `",
        path,
        "` is declared with `name = \"",
        declared,
        "\"`, but it is listed under the name `",
        used,
        "`, so its tool would be `agent__",
        used,
        "` while the child calls itself `agent__",
        declared,
        "`: write `agents = [",
        path,
        "(name = \"",
        declared,
        "\")]`",
    ]);
    panic!("{}", text(&buf, len));
}

/// Checks, at compile time, that an agent lists the function tool `path`
/// under the name the tool is declared with (`declared`, when the tool
/// declares one: `#[tool(name = "..")]`): dispatch and matchers use the
/// name the agent lists it under, the model the tool's own.
#[doc(hidden)]
pub const fn function_tool_name(declared: Option<&str>, used: &str, path: &str) {
    let Some(declared) = declared else {
        return;
    };
    if str_eq(declared, used) {
        return;
    }
    let (buf, len) = joined(&[
        "tool `",
        path,
        "` is declared with the name `",
        declared,
        "`, but the agent lists it under the name `",
        used,
        "`, so the model would be offered `",
        declared,
        "` and its calls would not reach the tool: write `function_tools = [",
        path,
        "(name = \"",
        declared,
        "\")]`",
    ]);
    panic!("{}", text(&buf, len));
}

/// The first `len` bytes of `buf` as text.
const fn text(buf: &[u8], len: usize) -> &str {
    let (bytes, _) = buf.split_at(len);
    match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => "an agent lists a tool or child under another name than it was declared with",
    }
}

/// `parts` joined into a buffer (at most 1024 bytes of them), and the
/// length used: the message of a compile-time check.
const fn joined(parts: &[&str]) -> ([u8; 1024], usize) {
    let mut buf = [0u8; 1024];
    let mut len = 0;
    let mut i = 0;
    while i < parts.len() {
        let bytes = parts[i].as_bytes();
        let mut j = 0;
        while j < bytes.len() && len < buf.len() {
            buf[len] = bytes[j];
            len += 1;
            j += 1;
        }
        i += 1;
    }
    (buf, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_bytewise() {
        assert!(str_eq("ny", "ny"));
        assert!(!str_eq("ny", "Ny"));
        assert!(!str_eq("ny", "nyc"));
        child_agent_name("ny", "ny", "Ny");
    }
}
