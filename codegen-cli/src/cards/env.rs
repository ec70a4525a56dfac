//! `${NAME}` and `${NAME:-default}` in a card's YAML.
//!
//! The YAML is parsed first, as written; then the references are resolved
//! in the string scalars that are *values* of the parsed tree, never in
//! mapping keys (a reference cannot rename a field) and never in comments
//! (which the tree does not hold). A value from the environment is one
//! string: a variable that holds a line break and `model: ...` cannot add
//! or change fields. A value that is one unquoted reference
//! (`max_parallel: ${N}`) is typed as YAML types a plain scalar (`4` is an
//! integer, `true` a boolean); quoted (`"${N}"`), it stays a string.
//!
//! `$${` is a literal `${`. A reference that is not closed, holds another
//! one (`${A:-${B}}`) or has an invalid name is an error at its
//! `file:line:col`, found by reading the value's text in the card the same
//! way (the parsed tree has no positions; [`Source`] locates a value).

use super::{Diagnostic, EnvLookup, Source};
use crate::yaml::{Seg, Yaml};

/// What is wrong with a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Problem {
    /// No closing `}`.
    Unclosed,
    /// `${` inside it.
    Nested,
    /// Not a variable name.
    Invalid,
}

/// One piece of a string, as [`scan`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece<'s> {
    /// Text as it is (`$${` gives `${`).
    Text(&'s str),
    /// A reference: its byte offset and text (`${NAME:-default}`), its name
    /// and default, or what is wrong with it.
    Ref {
        at: usize,
        text: &'s str,
        name: &'s str,
        default: Option<&'s str>,
        problem: Option<Problem>,
    },
}

/// The pieces of `s`, in order.
fn scan(s: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut text_start = 0;
    while let Some(found) = s[i..].find('$') {
        let at = i + found;
        let rest = &s[at..];
        if rest.starts_with("$${") {
            out.push(Piece::Text(&s[text_start..at]));
            out.push(Piece::Text("${"));
            i = at + 3;
            text_start = i;
            continue;
        }
        if !rest.starts_with("${") {
            i = at + 1;
            continue;
        }
        out.push(Piece::Text(&s[text_start..at]));
        let inner_start = at + 2;
        let (end, problem) = match s[inner_start..].find('}') {
            None => (s.len(), Some(Problem::Unclosed)),
            Some(close) if s[inner_start..inner_start + close].contains("${") => {
                match matching_brace(s, inner_start) {
                    Some(end) => (end, Some(Problem::Nested)),
                    None => (s.len(), Some(Problem::Unclosed)),
                }
            }
            Some(close) => (inner_start + close + 1, None),
        };
        let inner = &s[inner_start..end.saturating_sub(1).max(inner_start)];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let problem = problem.or((!valid).then_some(Problem::Invalid));
        out.push(Piece::Ref {
            at,
            text: &s[at..end],
            name,
            default,
            problem,
        });
        i = end;
        text_start = i;
    }
    out.push(Piece::Text(&s[text_start..]));
    out
}

/// The end (after its `}`) of the reference whose text starts at
/// `inner_start`, counting the `${` inside it.
fn matching_brace(s: &str, inner_start: usize) -> Option<usize> {
    let mut depth = 1usize;
    let bytes = s.as_bytes();
    let mut i = inner_start;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"${") {
            depth += 1;
            i += 2;
            continue;
        }
        if bytes[i] == b'}' {
            depth -= 1;
            if depth == 0 {
                return Some(i + 1);
            }
        }
        i += 1;
    }
    None
}

/// Where the `n`-th reference (0-based) of the value at `path` is written:
/// its file line, column and width. The value's text is read from where
/// [`Source`] locates it, on, with the same [`scan`]; `None` if it is not
/// found there (the value's own line is then shown).
fn position(src: &Source, path: &[Seg<'_>], n: usize) -> Option<(usize, usize, usize)> {
    let loc = src.index.locate(path);
    let (col, _) = loc.value_or_key();
    let first = loc.line + src.offset;
    let mut seen = 0;
    let last = src.offset + src.yaml.split('\n').count();
    for line in first..=last {
        let text = src.source_line(line)?;
        let skip = if line == first { col - 1 } else { 0 };
        let start = text.char_indices().nth(skip).map_or(text.len(), |(b, _)| b);
        for piece in scan(&text[start..]) {
            if let Piece::Ref {
                at,
                text: r,
                problem,
                ..
            } = piece
            {
                if seen == n {
                    let col = text[..start + at].chars().count() + 1;
                    // An unclosed one: its `${`.
                    let len = if problem == Some(Problem::Unclosed) {
                        2
                    } else {
                        r.chars().count()
                    };
                    return Some((line, col, len));
                }
                seen += 1;
            }
        }
    }
    None
}

/// Whether the value at `path` is written as the reference `r` alone,
/// unquoted (then its value is typed).
fn unquoted_alone(src: &Source, path: &[Seg<'_>], r: &str) -> bool {
    let loc = src.index.locate(path);
    let Some(line) = src.source_line(loc.line + src.offset) else {
        return false;
    };
    let (col, _) = loc.value_or_key();
    let rest: String = line.chars().skip(col - 1).collect();
    match rest.find(r) {
        Some(at) => !matches!(rest[..at].chars().next_back(), Some('"' | '\'')),
        None => false,
    }
}

/// An owned step of a path into the tree.
enum Step {
    Key(String),
    Index(usize),
}

/// Resolves the references of `value` (the card `src`'s parsed YAML) with
/// `env`: every error at its position.
pub(crate) fn expand(
    src: &Source,
    value: Yaml,
    env: EnvLookup<'_>,
) -> Result<Yaml, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut path = Vec::new();
    let value = walk(src, value, env, &mut path, &mut diags);
    if diags.is_empty() {
        Ok(value)
    } else {
        Err(diags)
    }
}

fn walk(
    src: &Source,
    value: Yaml,
    env: EnvLookup<'_>,
    path: &mut Vec<Step>,
    diags: &mut Vec<Diagnostic>,
) -> Yaml {
    match value {
        Yaml::Str(s) if s.contains('$') => string(src, s, env, path, diags),
        Yaml::Seq(items) => Yaml::Seq(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    path.push(Step::Index(i));
                    let v = walk(src, v, env, path, diags);
                    path.pop();
                    v
                })
                .collect(),
        ),
        // Keys stay as written.
        Yaml::Map(entries) => Yaml::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    path.push(Step::Key(k.clone()));
                    let v = walk(src, v, env, path, diags);
                    path.pop();
                    (k, v)
                })
                .collect(),
        ),
        other => other,
    }
}

/// One string value, resolved.
fn string(
    src: &Source,
    s: String,
    env: EnvLookup<'_>,
    path: &[Step],
    diags: &mut Vec<Diagnostic>,
) -> Yaml {
    let segs: Vec<Seg<'_>> = path
        .iter()
        .map(|s| match s {
            Step::Key(k) => Seg::Key(k),
            Step::Index(i) => Seg::Index(*i),
        })
        .collect();
    let pieces = scan(&s);
    let mut out = String::with_capacity(s.len());
    let mut n = 0;
    let mut lone = None;
    for piece in &pieces {
        let (text, name, default, problem) = match piece {
            Piece::Text(t) => {
                out.push_str(t);
                continue;
            }
            Piece::Ref {
                text,
                name,
                default,
                problem,
                ..
            } => (*text, *name, *default, *problem),
        };
        let mut at =
            |message: String| {
                let d = match position(src, &segs, n) {
                    Some((line, col, len)) => src.line(line, col, len, message),
                    None => src.at(&segs, true, message),
                };
                diags.push(d.help(match problem {
                Some(Problem::Nested) => {
                    "references cannot be nested: write the default as text, `${NAME:-value}`"
                        .to_owned()
                }
                Some(_) => "write `${NAME}` or `${NAME:-default}` (a name is letters, digits \
                            and `_`, not starting with a digit); for a literal `${`, write `$${`"
                    .to_owned(),
                None => format!("set `{name}`, or give a default: `${{{name}:-value}}`"),
            }));
            };
        match problem {
            Some(Problem::Unclosed) => at("unclosed `${` environment reference".to_owned()),
            Some(Problem::Nested) => at(format!("nested environment reference in `{text}`")),
            Some(Problem::Invalid) => at(format!("invalid environment reference `{text}`")),
            None => match env(name).or_else(|| default.map(str::to_owned)) {
                Some(value) => {
                    out.push_str(&value);
                    lone = Some((text, value));
                }
                None => at(format!("environment variable `{name}` is not set")),
            },
        }
        n += 1;
    }
    let alone = pieces
        .iter()
        .filter(|p| !matches!(p, Piece::Text("")))
        .count()
        == 1;
    if let Some((text, value)) = lone
        && alone
        && unquoted_alone(src, &segs, text)
    {
        return typed(&value);
    }
    Yaml::Str(out)
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

/// Loads and checks every card of `dir`, resolving `${NAME}` with `env`.
/// A diagnostic never shows a variable's value: where a value taken from
/// `env` would appear, it says `${NAME}` instead (the value may be a
/// secret).
pub fn load_dir_with_env(
    dir: &std::path::Path,
    env: EnvLookup<'_>,
) -> Result<super::Cards, Vec<Diagnostic>> {
    let taken = std::cell::RefCell::new(Vec::new());
    let recording = |name: &str| {
        let value = env(name);
        if let Some(value) = &value {
            taken.borrow_mut().push((name.to_owned(), value.clone()));
        }
        value
    };
    super::load_dir_resolved(dir, &recording).map_err(|mut diags| {
        hide_values(&mut diags, &taken.borrow());
        diags
    })
}

/// Says `${NAME}` wherever the value of `NAME` (one of `taken`, the
/// variables read while loading) appears in what a diagnostic says (its
/// message, help and notes): a value from the environment may be a
/// secret, and `cardgen` never prints one. A value of at least 6 bytes is
/// replaced wherever it appears; a shorter one where it stands alone (not
/// inside a longer word).
pub(crate) fn hide_values(diags: &mut [Diagnostic], taken: &[(String, String)]) {
    let mut values: Vec<&(String, String)> =
        taken.iter().filter(|(_, v)| !v.trim().is_empty()).collect();
    values.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    values.dedup_by(|a, b| a.1 == b.1);
    if values.is_empty() {
        return;
    }
    let hide = |text: &mut String| {
        for (name, value) in &values {
            *text = replace_value(text, value, &format!("${{{name}}}"));
        }
    };
    for d in diags {
        hide(&mut d.message);
        if let Some(help) = &mut d.help {
            hide(help);
        }
        for note in &mut d.notes {
            hide(note);
        }
    }
}

/// `text` with `value` replaced by `name` (see [`hide_values`]).
fn replace_value(text: &str, value: &str, name: &str) -> String {
    if value.len() >= 6 {
        return text.replace(value, name);
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(value) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + value.len()..].chars().next();
        out.push_str(&rest[..at]);
        if word(before) || word(after) {
            out.push_str(value);
        } else {
            out.push_str(name);
        }
        rest = &rest[at + value.len()..];
    }
    out.push_str(rest);
    out
}

/// A help for a YAML syntax error on `line`: a `${` reference inside a flow
/// collection (`[..]`, `{..}`) must be quoted, as `{` starts a mapping
/// there.
pub(crate) fn syntax_help(line: &str) -> Option<&'static str> {
    let first_flow = line.find(['[', '{'])?;
    line[first_flow..]
        .contains("${")
        .then_some("inside `[...]` or `{...}`, quote an environment reference: `[\"${NAME}\"]`")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn resolve(yaml: &str, env: &[(&str, &str)]) -> Result<Yaml, Vec<Diagnostic>> {
        let lookup = |name: &str| {
            env.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        };
        let src = Source::new(
            PathBuf::from("a.yaml"),
            yaml.to_owned(),
            yaml.to_owned(),
            0,
            None,
            0,
        );
        expand(&src, crate::yaml::parse(yaml).unwrap(), &lookup)
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
        // In quoted flow lists and the middle of a string.
        let y = resolve(
            "agents: [\"${A}\", \"${B}\"]\nmodel: 'gpt-${V:-4}o'\n",
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
    fn keys_comments_and_escapes_are_left_alone() {
        let y = resolve(
            "${X:-name}: mallory # ${UNSET}\n# ${ALSO_UNSET}\nmodel: \"$${X} costs $5 \u{E000}\u{E010}\u{E001}\"\n",
            &[("X", "v")],
        )
        .unwrap();
        assert_eq!(
            y,
            map(&[
                ("${X:-name}", Yaml::Str("mallory".into())),
                (
                    "model",
                    Yaml::Str("${X} costs $5 \u{E000}\u{E010}\u{E001}".into())
                ),
            ])
        );
    }

    #[test]
    fn values_are_hidden_behind_their_names() {
        let mut d = Diagnostic::new(
            std::path::Path::new("a.md"),
            None,
            1,
            1,
            1,
            "found `123` and sk-secret-1 (in sk-secret-12x)",
        )
        .help("not 1234 but 123")
        .note("123abc stays");
        let taken = [
            ("PIN".to_owned(), "123".to_owned()),
            ("KEY".to_owned(), "sk-secret-1".to_owned()),
        ];
        hide_values(std::slice::from_mut(&mut d), &taken);
        assert_eq!(d.message, "found `${PIN}` and ${KEY} (in ${KEY}2x)");
        assert_eq!(d.help.as_deref(), Some("not 1234 but ${PIN}"));
        assert_eq!(d.notes, ["123abc stays"]);
    }

    #[test]
    fn errors_point_at_the_reference() {
        let diags = resolve(
            "model: ${UNSET}\nname: a ${1x}\nx: ${A:-${B}}\ny: \"${\"\nz: |\n  one\n  two ${Q\n",
            &[],
        )
        .unwrap_err();
        let at: Vec<(usize, usize, usize)> = diags.iter().map(|d| (d.line, d.col, d.len)).collect();
        assert_eq!(at, [(1, 8, 8), (2, 9, 5), (3, 4, 10), (4, 5, 2), (7, 7, 2)]);
        assert_eq!(
            diags[2].message,
            "nested environment reference in `${A:-${B}}`"
        );
        assert_eq!(diags[3].message, "unclosed `${` environment reference");
    }
}
