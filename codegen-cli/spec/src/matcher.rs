//! Tool matchers: which tools a hook applies to.

use std::fmt;
use std::str::FromStr;

use super::ToolSource;

/// What a matcher is evaluated against: one tool's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchTarget<'a> {
    /// The tool's name as the model sees it (for MCP tools, `server__tool`).
    pub tool: &'a str,
    /// Where the tool comes from.
    pub source: ToolSource,
}

impl<'a> MatchTarget<'a> {
    /// A target for `tool` from `source`.
    pub const fn new(tool: &'a str, source: ToolSource) -> Self {
        Self { tool, source }
    }
}

/// Selects tools by name or source.
///
/// The string syntax, shared by `#[hook(match = "...")]`, `#[agent]` and
/// AgentCards:
///
/// | syntax | matches |
/// |---|---|
/// | `*` | every tool |
/// | `read_file` | exactly that name |
/// | `read_*`, `fs__{read,write}` | a glob over the name (`*`, `?`, `[..]`, `{a,b}`) |
/// | `read_file\|write_file` | any of the alternatives (each may be a glob) |
/// | `/^fs__(read\|write)$/` | a regular expression, searched in the name (anchor it yourself) |
/// | `source:mcp` | every tool from that source (`mcp`, `function`, `agent`, `runtime`) |
/// | `!pattern` | every tool the pattern does not match |
///
/// Composites are built with [`Matcher::all`], [`Matcher::any`] and
/// [`Matcher::not`], or in YAML as `{all: [...]}`, `{any: [...]}`, `{not: ...}`.
///
/// ```
/// use hookwire_spec::{MatchTarget, Matcher, ToolSource};
///
/// let m: Matcher = "read_*|write_file".parse().unwrap();
/// assert!(m.matches(MatchTarget::new("read_dir", ToolSource::Function)));
/// assert!(!m.matches(MatchTarget::new("delete_file", ToolSource::Function)));
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum Matcher {
    /// Every tool (`*`).
    #[default]
    Always,
    /// Exactly this name.
    Exact(String),
    /// A glob over the name.
    Glob(Glob),
    /// A regular expression searched in the name.
    Regex(regex::Regex),
    /// Every tool from this source.
    Source(ToolSource),
    /// Every listed matcher matches.
    All(Vec<Matcher>),
    /// At least one listed matcher matches (`a|b`).
    Any(Vec<Matcher>),
    /// The inner matcher does not match (`!pattern`).
    Not(Box<Matcher>),
}

/// A compiled glob together with its source text.
#[derive(Debug, Clone)]
pub struct Glob {
    pattern: String,
    matcher: globset::GlobMatcher,
}

impl Glob {
    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }
}

/// Why a matcher string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MatcherError {
    /// The pattern, or one alternative of it, is empty.
    #[error("empty matcher pattern in `{0}`")]
    Empty(String),
    /// A `/regex/` that does not compile.
    #[error("invalid regex `{pattern}`: {message}")]
    InvalidRegex {
        /// The regex between the slashes.
        pattern: String,
        /// What the regex engine said.
        message: String,
    },
    /// A glob that does not compile.
    #[error("invalid glob `{pattern}`: {message}")]
    InvalidGlob {
        /// The glob as written.
        pattern: String,
        /// What the glob engine said.
        message: String,
    },
    /// `source:x` with an unknown source.
    #[error(transparent)]
    UnknownSource(#[from] super::UnknownToolSource),
}

impl Matcher {
    /// Parses the string syntax described on [`Matcher`].
    pub fn parse(pattern: &str) -> Result<Self, MatcherError> {
        let trimmed = pattern.trim();
        if trimmed.is_empty() {
            return Err(MatcherError::Empty(pattern.to_owned()));
        }
        if let Some(rest) = trimmed.strip_prefix('!') {
            return Ok(Self::not(Self::parse(rest)?));
        }
        if trimmed.len() >= 2 && trimmed.starts_with('/') && trimmed.ends_with('/') {
            let body = &trimmed[1..trimmed.len() - 1];
            return regex::Regex::new(body).map(Self::Regex).map_err(|e| {
                MatcherError::InvalidRegex {
                    pattern: body.to_owned(),
                    message: e.to_string(),
                }
            });
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

    fn parse_simple(pattern: &str) -> Result<Self, MatcherError> {
        if pattern == "*" {
            return Ok(Self::Always);
        }
        if let Some(source) = pattern.strip_prefix("source:") {
            return Ok(Self::Source(source.trim().parse()?));
        }
        if pattern.contains(['*', '?', '[', '{']) {
            return Self::glob(pattern);
        }
        Ok(Self::Exact(pattern.to_owned()))
    }

    /// A glob matcher.
    pub fn glob(pattern: &str) -> Result<Self, MatcherError> {
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

    /// Every one of `matchers` must match (an empty list matches everything).
    pub fn all(matchers: impl IntoIterator<Item = Matcher>) -> Self {
        Self::All(matchers.into_iter().collect())
    }

    /// At least one of `matchers` must match (an empty list matches nothing).
    pub fn any(matchers: impl IntoIterator<Item = Matcher>) -> Self {
        Self::Any(matchers.into_iter().collect())
    }

    /// The negation of `matcher`.
    #[allow(clippy::should_implement_trait)]
    pub fn not(matcher: Matcher) -> Self {
        Self::Not(Box::new(matcher))
    }

    /// Whether this matcher selects `target`.
    ///
    /// The emitter calls this while generating code for statically known
    /// tools; the runtime calls it for tools discovered at run time.
    pub fn matches(&self, target: MatchTarget<'_>) -> bool {
        match self {
            Self::Always => true,
            Self::Exact(name) => name == target.tool,
            Self::Glob(glob) => glob.matcher.is_match(target.tool),
            Self::Regex(re) => re.is_match(target.tool),
            Self::Source(source) => *source == target.source,
            Self::All(ms) => ms.iter().all(|m| m.matches(target)),
            Self::Any(ms) => ms.iter().any(|m| m.matches(target)),
            Self::Not(m) => !m.matches(target),
        }
    }

    /// Whether this matcher is `*` (matches every tool without looking).
    pub fn is_always(&self) -> bool {
        matches!(self, Self::Always)
    }
}

impl FromStr for Matcher {
    type Err = MatcherError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl fmt::Display for Matcher {
    /// The canonical string form; composites that the string syntax cannot
    /// express are written as `all(...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Always => f.write_str("*"),
            Self::Exact(name) => f.write_str(name),
            Self::Glob(glob) => f.write_str(&glob.pattern),
            Self::Regex(re) => write!(f, "/{}/", re.as_str()),
            Self::Source(source) => write!(f, "source:{source}"),
            Self::Not(m) => write!(f, "!{m}"),
            Self::Any(ms) => join(f, ms, "|", "any()"),
            Self::All(ms) => {
                f.write_str("all(")?;
                join(f, ms, ", ", "")?;
                f.write_str(")")
            }
        }
    }
}

fn join(f: &mut fmt::Formatter<'_>, ms: &[Matcher], sep: &str, empty: &str) -> fmt::Result {
    if ms.is_empty() {
        return f.write_str(empty);
    }
    for (i, m) in ms.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{m}")?;
    }
    Ok(())
}

/// The YAML/JSON form: a string, or `{all: [..]}`, `{any: [..]}`, `{not: ..}`.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum MatcherRepr {
    Pattern(String),
    Composite(Composite),
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum Composite {
    All(Vec<MatcherRepr>),
    Any(Vec<MatcherRepr>),
    Not(Box<MatcherRepr>),
}

impl TryFrom<MatcherRepr> for Matcher {
    type Error = MatcherError;

    fn try_from(repr: MatcherRepr) -> Result<Self, Self::Error> {
        Ok(match repr {
            MatcherRepr::Pattern(p) => Self::parse(&p)?,
            MatcherRepr::Composite(Composite::All(ms)) => Self::All(
                ms.into_iter()
                    .map(Self::try_from)
                    .collect::<Result<_, _>>()?,
            ),
            MatcherRepr::Composite(Composite::Any(ms)) => Self::Any(
                ms.into_iter()
                    .map(Self::try_from)
                    .collect::<Result<_, _>>()?,
            ),
            MatcherRepr::Composite(Composite::Not(m)) => Self::not(Self::try_from(*m)?),
        })
    }
}

impl<'de> serde::Deserialize<'de> for Matcher {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let repr = MatcherRepr::deserialize(deserializer)?;
        Self::try_from(repr).map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for Matcher {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str) -> MatchTarget<'_> {
        MatchTarget::new(name, ToolSource::Function)
    }

    #[test]
    fn syntax_forms_select_the_right_tools() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("*", &["a", "read_file"], &[]),
            ("read_file", &["read_file"], &["read_files", "xread_file"]),
            ("read_*", &["read_file", "read_"], &["write_file"]),
            ("a|b", &["a", "b"], &["ab", "c"]),
            ("read_*|delete", &["read_x", "delete"], &["deleted"]),
            (
                "/^fs__(read|write)$/",
                &["fs__read", "fs__write"],
                &["fs__readx"],
            ),
            ("!shell", &["ls"], &["shell"]),
            (
                "time__{get,set}_*",
                &["time__get_x", "time__set_y"],
                &["time__del_x"],
            ),
        ];
        for (pattern, yes, no) in cases {
            let m = Matcher::parse(pattern).unwrap();
            for name in *yes {
                assert!(m.matches(t(name)), "{pattern} should match {name}");
            }
            for name in *no {
                assert!(!m.matches(t(name)), "{pattern} should not match {name}");
            }
        }
    }

    #[test]
    fn source_and_composites() {
        let m = Matcher::all([
            Matcher::parse("source:mcp").unwrap(),
            Matcher::not(Matcher::parse("time__*").unwrap()),
        ]);
        assert!(m.matches(MatchTarget::new("fs__read", ToolSource::Mcp)));
        assert!(!m.matches(MatchTarget::new("time__now", ToolSource::Mcp)));
        assert!(!m.matches(MatchTarget::new("fs__read", ToolSource::Function)));
        assert!(!Matcher::any([]).matches(t("x")));
        assert!(Matcher::all([]).matches(t("x")));
    }

    #[test]
    fn bad_patterns_are_errors_not_panics() {
        assert!(matches!(
            Matcher::parse("/(unclosed/"),
            Err(MatcherError::InvalidRegex { .. })
        ));
        assert!(matches!(Matcher::parse("  "), Err(MatcherError::Empty(_))));
        assert!(matches!(
            Matcher::parse("a||b"),
            Err(MatcherError::Empty(_))
        ));
        assert!(matches!(
            Matcher::parse("source:cloud"),
            Err(MatcherError::UnknownSource(_))
        ));
        assert!(matches!(
            Matcher::parse("a[b"),
            Err(MatcherError::InvalidGlob { .. })
        ));
    }

    #[test]
    fn display_round_trips() {
        for p in ["*", "a", "a_*", "a|b*", "/^x$/", "source:agent", "!a"] {
            let m = Matcher::parse(p).unwrap();
            assert_eq!(m.to_string(), p);
            assert_eq!(Matcher::parse(&m.to_string()).unwrap(), m);
        }
    }
}
