//! YAML, behind one module: the only place that uses `serde_yaml`, so that a
//! maintained successor can replace it in this one file.
//!
//! [`parse`] turns YAML text into our own [`Yaml`] tree (or a syntax error
//! with a line and column), and [`locate`] finds where a value sits in the
//! text (line, column and length of its key and value), so that card
//! diagnostics can point at the offending token. The locator reads block
//! style exactly and falls back to the nearest enclosing key for flow style.

use std::fmt;

mod locate;

pub use locate::{Index, Loc, Seg, locate};

/// A YAML value, as the card loader sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Yaml {
    /// `~`, `null` or nothing.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Yaml>),
    /// A mapping, in source order (keys as text).
    Map(Vec<(String, Yaml)>),
    /// A tagged value (`!tag value`), which cards do not use.
    Tagged(String),
}

impl Yaml {
    /// What kind of value this is, for error messages (`a string`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool(_) => "a boolean",
            Self::Int(_) => "an integer",
            Self::Float(_) => "a number",
            Self::Str(_) => "a string",
            Self::Seq(_) => "a list",
            Self::Map(_) => "a mapping",
            Self::Tagged(_) => "a tagged value",
        }
    }

    /// The value as JSON (tags become strings, non-finite floats null).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Int(i) => i64::try_from(*i)
                .map(Value::from)
                .or_else(|_| u64::try_from(*i).map(Value::from))
                .unwrap_or_else(|_| Value::from(*i as f64)),
            Self::Float(f) => serde_json::Number::from_f64(*f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            Self::Str(s) | Self::Tagged(s) => Value::String(s.clone()),
            Self::Seq(items) => Value::Array(items.iter().map(Self::to_json).collect()),
            Self::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// A YAML syntax error.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct YamlError {
    /// 1-based line in the parsed text.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// What is wrong.
    pub message: String,
    /// What to do, when the mistake is known (a key given twice, a number
    /// too large); `None` for a syntax error, whose cause is usually
    /// indentation.
    pub help: Option<String>,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// Parses YAML text.
pub fn parse(text: &str) -> Result<Yaml, YamlError> {
    let value: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| {
        let mut message = e.to_string();
        // Some errors (a control character) give a byte offset in the
        // message instead of a location.
        let offset = message.rfind(" at position ").and_then(|at| {
            let n = message[at + " at position ".len()..]
                .parse::<usize>()
                .ok()?;
            message.truncate(at);
            Some(n)
        });
        let (line, col) = match (offset, e.location()) {
            (Some(n), _) => crate::cards::line_col(text.as_bytes(), n),
            (None, Some(l)) => (l.line().max(1), l.column().max(1)),
            (None, None) => (1, 1),
        };
        if let Some(at) = message.find(" at line ") {
            message.truncate(at);
        }
        known_mistake(text, line, col, &message).unwrap_or(YamlError {
            line,
            col,
            message,
            help: None,
        })
    })?;
    Ok(convert(value))
}

/// A mistake `serde_yaml` reports in its own words, said plainly at its
/// own place: a key given twice (`serde_yaml` points at the mapping's
/// start; this is the second key's line), a whole number too large for
/// 128 bits.
fn known_mistake(text: &str, line: usize, col: usize, message: &str) -> Option<YamlError> {
    // The message may start with the path of the mapping (`x[0]: ..`).
    if let Some((_, key)) = message.split_once("duplicate entry with key ") {
        let key = key.trim_matches('"');
        // The mapping starts at (line, col): its keys are at column `col`
        // of the lines from there until one is indented less.
        let indent = col.saturating_sub(1);
        let written = [
            format!("{key}:"),
            format!("\"{key}\":"),
            format!("'{key}':"),
        ];
        let mut seen = Vec::new();
        for (no, l) in text.lines().enumerate().skip(line.saturating_sub(1)) {
            let leading = l.len() - l.trim_start().len();
            let first = no + 1 == line;
            if !first && !l.trim().is_empty() && leading < indent {
                break;
            }
            let at_key = first || leading == indent;
            let body = l.get(indent..).unwrap_or("");
            if at_key && written.iter().any(|w| body.starts_with(w.as_str())) {
                seen.push(no + 1);
            }
        }
        let help = Some("give each key once: remove one of them".to_owned());
        return Some(match seen[..] {
            [_, second, ..] => YamlError {
                line: second,
                col: col.max(1),
                message: format!("the key `{key}` is given twice: here is its second entry"),
                help,
            },
            _ => YamlError {
                line,
                col,
                message: format!("the key `{key}` is given twice in this mapping"),
                help,
            },
        });
    }
    let number = message
        .split_once("invalid type: integer `")
        .and_then(|(_, rest)| rest.split('`').next())?;
    Some(YamlError {
        line,
        col,
        message: format!("the number `{number}` is too large"),
        help: Some(
            "write a smaller number (a count or a number of seconds fits in 20 digits), or quote it to make it a string".to_owned(),
        ),
    })
}

fn convert(value: serde_yaml::Value) -> Yaml {
    use serde_yaml::Value;
    match value {
        Value::Null => Yaml::Null,
        Value::Bool(b) => Yaml::Bool(b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Yaml::Int(i128::from(i))
            } else if let Some(u) = n.as_u64() {
                Yaml::Int(i128::from(u))
            } else {
                Yaml::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => Yaml::Str(s),
        Value::Sequence(items) => Yaml::Seq(items.into_iter().map(convert).collect()),
        Value::Mapping(map) => Yaml::Map(
            map.into_iter()
                .map(|(k, v)| (key_text(k), convert(v)))
                .collect(),
        ),
        Value::Tagged(tagged) => Yaml::Tagged(format!("{}", tagged.tag)),
    }
}

fn key_text(key: serde_yaml::Value) -> String {
    use serde_yaml::Value;
    match key {
        Value::String(s) => s,
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Null => "null".to_owned(),
        other => serde_yaml::to_string(&other)
            .map(|s| s.trim().to_owned())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests;
