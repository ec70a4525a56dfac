//! `${NAME}` and `${NAME:-default}` in a card's YAML.
//!
//! A value from the environment is substituted into the *parsed* YAML,
//! never into its text: a variable that holds a line break and
//! `model: ...` stays one string and cannot add or change fields. Each
//! reference is first replaced in the text by a placeholder that YAML
//! reads as plain characters anywhere (in a plain, quoted or flow scalar),
//! the text is parsed, and then every placeholder in the parsed strings is
//! replaced by its value. A reference that is a whole unquoted scalar
//! (`max_parallel: ${N}`) is typed as YAML types a scalar (`4` is an
//! integer, `true` a boolean); quoted (`"${N}"`), it stays a string.

use std::path::Path;

use super::Diagnostic;
use crate::yaml::Yaml;

/// Starts a placeholder; then its number in [`DIGIT0`]-based digits, then
/// [`END`], then [`PAD`]s up to the width of the reference it stands for
/// (so that columns of YAML syntax errors stay those of the text). All are
/// private-use characters, which YAML reads as plain characters.
const START: char = '\u{E000}';
const END: char = '\u{E001}';
const PAD: char = '\u{E002}';
const DIGIT0: u32 = 0xE010;

/// The references of a card's YAML, resolved.
#[derive(Debug, Default)]
pub(crate) struct Resolved {
    /// Per reference: its value, and whether it is written between quotes.
    values: Vec<(String, bool)>,
}

/// Replaces every `${NAME}` / `${NAME:-default}` of `yaml` (a card's YAML,
/// starting `offset` lines into `text`) by a placeholder and resolves it
/// with `env`; an unset variable without a default, an unclosed or invalid
/// reference is an error at its position.
pub(crate) fn prepare(
    display: &Path,
    text: &str,
    yaml: &str,
    offset: usize,
    env: super::EnvLookup<'_>,
) -> Result<(String, Resolved), Vec<Diagnostic>> {
    if !yaml.contains("${") {
        return Ok((yaml.to_owned(), Resolved::default()));
    }
    let mut out = String::with_capacity(yaml.len());
    let mut resolved = Resolved::default();
    let mut diags = Vec::new();
    for (i, line) in yaml.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let at = |col: usize, width: usize, message: String| {
            Diagnostic::new(display, Some(text), i + 1 + offset, col, width, message)
        };
        let mut rest = line;
        let mut col = 1;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            col += rest[..start].chars().count();
            let before = rest[..start].chars().next_back();
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                diags.push(
                    at(col, 2, "unclosed `${` environment reference".into())
                        .help("write `${NAME}` or `${NAME:-default}`"),
                );
                out.push_str(&rest[start..]);
                rest = "";
                break;
            };
            let inner = &after[..end];
            let (name, default) = match inner.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (inner, None),
            };
            let valid = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let width = inner.chars().count() + 3;
            if !valid {
                diags.push(
                    at(
                        col,
                        width,
                        format!("invalid environment reference `${{{inner}}}`"),
                    )
                    .help("a variable name is letters, digits and `_`, not starting with a digit"),
                );
            } else {
                match env(name).or_else(|| default.map(str::to_owned)) {
                    Some(value) => {
                        let next = after[end + 1..].chars().next();
                        let quoted = matches!(before, Some('"' | '\'')) && next == before;
                        out.push_str(&placeholder(resolved.values.len(), width));
                        resolved.values.push((value, quoted));
                    }
                    None => diags.push(
                        at(
                            col,
                            width,
                            format!("environment variable `{name}` is not set"),
                        )
                        .help(format!(
                            "set `{name}`, or give a default: `${{{name}:-value}}`"
                        )),
                    ),
                }
            }
            col += width;
            rest = &after[end + 1..];
        }
        out.push_str(rest);
    }
    if diags.is_empty() {
        Ok((out, resolved))
    } else {
        Err(diags)
    }
}

/// The placeholder of reference `n`, padded to `width` characters.
fn placeholder(n: usize, width: usize) -> String {
    let mut s = String::new();
    s.push(START);
    let digits = n.to_string();
    for d in digits.bytes() {
        s.extend(char::from_u32(DIGIT0 + u32::from(d - b'0')));
    }
    s.push(END);
    let used = digits.len() + 2;
    s.extend(std::iter::repeat_n(PAD, width.saturating_sub(used)));
    s
}

impl Resolved {
    /// `value` with every placeholder replaced by its value (in strings
    /// and mapping keys, at any depth).
    pub(crate) fn substitute(&self, value: Yaml) -> Yaml {
        if self.values.is_empty() {
            return value;
        }
        match value {
            Yaml::Str(s) => self.scalar(s),
            Yaml::Seq(items) => Yaml::Seq(items.into_iter().map(|v| self.substitute(v)).collect()),
            Yaml::Map(entries) => Yaml::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (self.text(&k), self.substitute(v)))
                    .collect(),
            ),
            other => other,
        }
    }

    /// A string scalar: a lone unquoted reference is typed as YAML types a
    /// plain scalar; anything else is text.
    fn scalar(&self, s: String) -> Yaml {
        let mut chars = s.chars();
        if let Some((n, rest)) = self.reference(&mut chars)
            && rest.as_str().is_empty()
            && let Some((value, false)) = self.values.get(n)
        {
            return typed(value);
        }
        Yaml::Str(self.text(&s))
    }

    /// `s` with its placeholders replaced by their values.
    fn text(&self, s: &str) -> String {
        if !s.contains(START) {
            return s.to_owned();
        }
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars();
        while let Some(c) = chars.clone().next() {
            if c == START
                && let Some((n, rest)) = self.reference(&mut chars.clone())
                && let Some((value, _)) = self.values.get(n)
            {
                out.push_str(value);
                chars = rest;
                continue;
            }
            out.push(c);
            chars.next();
        }
        out
    }

    /// The reference a placeholder at the start of `chars` stands for, and
    /// the characters after it.
    fn reference<'s>(
        &self,
        chars: &mut std::str::Chars<'s>,
    ) -> Option<(usize, std::str::Chars<'s>)> {
        if chars.next()? != START {
            return None;
        }
        let mut n: usize = 0;
        let mut digits = 0;
        loop {
            let c = chars.next()?;
            if c == END {
                break;
            }
            let d = (c as u32).checked_sub(DIGIT0).filter(|d| *d < 10)?;
            n = n.checked_mul(10)?.checked_add(d as usize)?;
            digits += 1;
        }
        if digits == 0 {
            return None;
        }
        while chars.clone().next() == Some(PAD) {
            chars.next();
        }
        Some((n, chars.clone()))
    }
}

/// `value` typed as YAML types a plain scalar on one line: an integer, a
/// number, a boolean or null; anything else (several lines, a mapping, a
/// list, a comment) is the string itself.
fn typed(value: &str) -> Yaml {
    if value.contains(['\n', '\r']) {
        return Yaml::Str(value.to_owned());
    }
    match crate::yaml::parse(value) {
        Ok(v @ (Yaml::Int(_) | Yaml::Float(_) | Yaml::Bool(_))) => v,
        Ok(Yaml::Null) if matches!(value.trim(), "" | "~" | "null" | "Null" | "NULL") => Yaml::Null,
        _ => Yaml::Str(value.to_owned()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn resolve(yaml: &str, env: &[(&str, &str)]) -> Result<Yaml, Vec<Diagnostic>> {
        let lookup = |name: &str| {
            env.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        };
        let (text, resolved) = prepare(Path::new("a.yaml"), yaml, yaml, 0, &lookup)?;
        Ok(resolved.substitute(crate::yaml::parse(&text).unwrap()))
    }

    fn map(entries: &[(&str, Yaml)]) -> Yaml {
        Yaml::Map(
            entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn a_value_is_one_scalar_and_cannot_add_fields() {
        let y = resolve(
            "name: ${N}\nmodel: x\n",
            &[("N", "a\nmodel: evil\nmax_parallel: 0")],
        )
        .unwrap();
        assert_eq!(
            y,
            map(&[
                ("name", Yaml::Str("a\nmodel: evil\nmax_parallel: 0".into())),
                ("model", Yaml::Str("x".into())),
            ])
        );
        // In flow lists, quotes and the middle of a string.
        let y = resolve(
            "agents: [${A}, \"${B}\"]\nmodel: 'gpt-${V:-4}o'\n",
            &[("A", "x, y"), ("B", "\"q\"")],
        )
        .unwrap();
        assert_eq!(
            y,
            map(&[
                (
                    "agents",
                    Yaml::Seq(vec![Yaml::Str("x, y".into()), Yaml::Str("\"q\"".into())])
                ),
                ("model", Yaml::Str("gpt-4o".into())),
            ])
        );
    }

    #[test]
    fn a_lone_unquoted_reference_is_typed_and_a_quoted_one_stays_text() {
        let y = resolve(
            "max_parallel: ${N}\ndefault: ${D}\nname: \"${N}\"\nmodel: ${E:-}\n",
            &[("N", "4"), ("D", "true")],
        )
        .unwrap();
        assert_eq!(
            y,
            map(&[
                ("max_parallel", Yaml::Int(4)),
                ("default", Yaml::Bool(true)),
                ("name", Yaml::Str("4".into())),
                ("model", Yaml::Null),
            ])
        );
        assert_eq!(typed("[a, b]"), Yaml::Str("[a, b]".into()));
        assert_eq!(typed("# c"), Yaml::Str("# c".into()));
    }

    #[test]
    fn errors_point_at_the_reference() {
        let diags = resolve("model: ${UNSET}\nname: ${1x}\nx: ${", &[]).unwrap_err();
        let at: Vec<(usize, usize)> = diags.iter().map(|d| (d.line, d.col)).collect();
        assert_eq!(at, [(1, 8), (2, 7), (3, 4)]);
    }

    #[test]
    fn placeholders_keep_the_width_of_short_references() {
        assert_eq!(placeholder(7, 6).chars().count(), 6);
        assert_eq!(placeholder(123, 4).chars().count(), 5);
    }
}
