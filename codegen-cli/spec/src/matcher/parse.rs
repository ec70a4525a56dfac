//! The string syntax of a matcher (described on [`Matcher`]): iterative,
//! length- and depth-limited, so no input can exhaust the stack.

use std::str::FromStr;

use super::{Glob, MAX_MATCHER_DEPTH, MAX_MATCHER_LEN, Matcher, MatcherError, StepKind};
use crate::meta::{check_meta_key, check_meta_value};

/// A name no tool has (model APIs accept no control character in a tool
/// name): a regex that matches it matches the empty string anywhere, so
/// every name.
const NO_TOOL: &str = "\u{0}";

impl Matcher {
    /// Parses the string syntax described on [`Matcher`].
    ///
    /// At most [`MAX_MATCHER_LEN`] bytes and [`MAX_MATCHER_DEPTH`] `!`
    /// prefixes; the parse is iterative, so no input can exhaust the stack.
    /// An empty pattern, regex, alternative (`a||b`) or glob alternative
    /// (`{a,}`) is an error, as is a regex that matches every name.
    pub fn parse(pattern: &str) -> Result<Self, MatcherError> {
        if pattern.len() > MAX_MATCHER_LEN {
            return Err(MatcherError::TooLong {
                len: pattern.len(),
                max: MAX_MATCHER_LEN,
            });
        }
        let mut rest = pattern.trim();
        let mut negations = 0;
        while let Some(inner) = rest.strip_prefix('!') {
            negations += 1;
            if negations > MAX_MATCHER_DEPTH {
                return Err(MatcherError::TooDeep {
                    max: MAX_MATCHER_DEPTH,
                });
            }
            rest = inner.trim_start();
        }
        let mut m = Self::parse_positive(pattern, rest)?;
        for _ in 0..negations {
            m = Self::not(m);
        }
        Ok(m)
    }

    /// A pattern without leading `!`: a regex, a union, or one simple part.
    fn parse_positive(pattern: &str, trimmed: &str) -> Result<Self, MatcherError> {
        if trimmed.is_empty() {
            return Err(MatcherError::Empty(pattern.to_owned()));
        }
        if trimmed.len() >= 2 && trimmed.starts_with('/') && trimmed.ends_with('/') {
            return Self::regex(&trimmed[1..trimmed.len() - 1]);
        }
        if trimmed.contains('|') {
            let alternatives = trimmed
                .split('|')
                .map(|alt| {
                    if alt.trim().is_empty() {
                        Err(MatcherError::Empty(pattern.to_owned()))
                    } else {
                        Self::parse_simple(alt.trim())
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Self::Any(alternatives));
        }
        Self::parse_simple(trimmed)
    }

    /// A regex matcher (`body` is the text between the slashes).
    fn regex(body: &str) -> Result<Self, MatcherError> {
        if body.is_empty() {
            return Err(MatcherError::EmptyRegex);
        }
        let re = regex::RegexBuilder::new(body)
            .size_limit(1 << 20)
            .nest_limit(64)
            .build()
            .map_err(|e| MatcherError::InvalidRegex {
                pattern: body.to_owned(),
                message: e.to_string(),
            })?;
        if re.is_match(NO_TOOL) {
            return Err(MatcherError::MatchesEverything(body.to_owned()));
        }
        Ok(Self::Regex(re))
    }

    fn parse_simple(pattern: &str) -> Result<Self, MatcherError> {
        if pattern == "*" {
            return Ok(Self::Always);
        }
        if let Some(source) = pattern.strip_prefix("source:") {
            return Ok(Self::Source(source.trim().parse()?));
        }
        if let Some(step) = pattern.strip_prefix("step:") {
            let step = step.trim();
            return StepKind::ALL
                .iter()
                .find(|(name, _)| *name == step)
                .map(|(_, kind)| Self::Step(*kind))
                .ok_or_else(|| MatcherError::UnknownStep(step.to_owned()));
        }
        if let Some(meta) = pattern.strip_prefix("meta:") {
            let (key, value) = match meta.split_once('=') {
                Some((key, value)) => (key.trim(), Some(value.trim())),
                None => (meta.trim(), None),
            };
            check_meta_key(key)?;
            if let Some(value) = value {
                check_meta_value(key, value)?;
            }
            return Ok(Self::Meta {
                key: key.to_owned(),
                value: value.map(str::to_owned),
            });
        }
        if pattern.contains(['*', '?', '[', '{']) {
            return Self::glob(pattern);
        }
        Ok(Self::Exact(pattern.to_owned()))
    }

    /// A glob matcher.
    pub fn glob(pattern: &str) -> Result<Self, MatcherError> {
        if pattern.is_empty() {
            return Err(MatcherError::Empty(pattern.to_owned()));
        }
        if ["{}", "{,", ",,", ",}"].iter().any(|e| pattern.contains(e)) {
            return Err(MatcherError::EmptyGlobAlternative(pattern.to_owned()));
        }
        globset::GlobBuilder::new(pattern)
            .literal_separator(false)
            .build()
            .map(|glob| {
                Self::Glob(Glob {
                    pattern: pattern.to_owned(),
                    matcher: glob.compile_matcher(),
                })
            })
            .map_err(|e| MatcherError::InvalidGlob {
                pattern: pattern.to_owned(),
                message: e.kind().to_string(),
            })
    }
}

impl FromStr for Matcher {
    type Err = MatcherError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}
