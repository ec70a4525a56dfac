//! Tool matchers: which tools a hook applies to.

use std::fmt;
use std::str::FromStr;

use super::ToolSource;
use super::meta::{MetaError, MetaFormula, ToolMeta, check_meta_key, check_meta_value};

/// The metadata of a target that has none.
static NO_META: ToolMeta = ToolMeta::EMPTY;

/// What a matcher is evaluated against: one tool call's identity, or (for
/// a lifecycle hook's `stop` and `step_end`) a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MatchTarget<'a> {
    /// The tool's name as the model sees it (for MCP tools, `server__tool`);
    /// empty for a step as a whole.
    pub tool: &'a str,
    /// Where the tool comes from.
    pub source: ToolSource,
    /// The kind of step: a tool execution, or the final answer.
    pub step: StepKind,
    /// The metadata the tool declares (`meta:` parts read it).
    pub meta: &'a ToolMeta,
}

impl<'a> MatchTarget<'a> {
    /// A target for a call of `tool` from `source` (a tool execution).
    pub const fn new(tool: &'a str, source: ToolSource) -> Self {
        Self {
            tool,
            source,
            step: StepKind::Tool,
            meta: &NO_META,
        }
    }

    /// The same target, for a tool that declares `meta`.
    pub const fn with_meta(self, meta: &'a ToolMeta) -> Self {
        Self { meta, ..self }
    }

    /// A step as a whole, of kind `step` (no tool: only `step:` parts and
    /// negations select it).
    pub const fn step(step: StepKind) -> Self {
        Self {
            tool: "",
            source: ToolSource::Function,
            step,
            meta: &NO_META,
        }
    }

    /// Whether this is one tool call (name and source parts apply).
    const fn is_call(&self) -> bool {
        !self.tool.is_empty()
    }
}

/// The kind of an agent step, for `step:` matchers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// The model answered with tool calls, which run (`step:tool`).
    Tool,
    /// The model gave its final answer (`step:final`).
    Final,
}

impl StepKind {
    /// Every kind with its spelling after `step:`.
    pub const ALL: [(&'static str, StepKind); 2] = [("tool", Self::Tool), ("final", Self::Final)];

    /// `tool` or `final`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Final => "final",
        }
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
/// | `step:tool`, `step:final` | every tool call (a tool execution step); the final answer (only a lifecycle hook's `stop` and `step_end` see it) |
/// | `meta:risk`, `meta:risk=high` | every tool that declares the metadata key `risk` (with that value): `#[tool(meta(risk = "high"))]` |
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
    /// Every step of this kind (`step:tool` selects every tool call).
    Step(StepKind),
    /// Every tool that declares the metadata key `key` (`meta:key`), with
    /// the value `value` if given (`meta:key=value`).
    Meta {
        /// The key.
        key: String,
        /// The value it must have; `None`: any.
        value: Option<String>,
    },
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

/// The longest matcher string accepted, in bytes: a matcher is written by
/// hand, and a longer one is a mistake (or an attack on the code generator).
pub const MAX_MATCHER_LEN: usize = 1024;

/// How deeply a matcher may nest: `!` prefixes in the string syntax,
/// `{not: ..}`, `{any: [..]}` and `{all: [..]}` in the YAML form.
pub const MAX_MATCHER_DEPTH: usize = 8;

/// Why a matcher string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MatcherError {
    /// The pattern, or one alternative of it, is empty.
    #[error("empty matcher pattern in `{0}`")]
    Empty(String),
    /// A `/regex/` between two slashes with nothing in them.
    #[error(
        "empty regex `//`: it would select every tool; write `*` for every tool, or put a pattern between the slashes"
    )]
    EmptyRegex,
    /// A glob with an empty `{a,}` alternative.
    #[error(
        "empty alternative in glob `{0}`: every alternative between `{{` and `}}` needs a pattern"
    )]
    EmptyGlobAlternative(String),
    /// A `/regex/` that matches every name (it matches the empty string
    /// anywhere, as `/a|/` or `/x*/` do).
    #[error(
        "regex `{0}` selects every tool (it matches an empty string, as an empty alternative `a|` does); write `*` for every tool, or anchor and fill in the pattern"
    )]
    MatchesEverything(String),
    /// A matcher longer than [`MAX_MATCHER_LEN`].
    #[error("matcher too long: {len} bytes, at most {max}")]
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// [`MAX_MATCHER_LEN`].
        max: usize,
    },
    /// A matcher nested deeper than [`MAX_MATCHER_DEPTH`].
    #[error(
        "matcher nested too deeply: more than {max} levels of `!`, `not`, `any` or `all`; `!!p` is `p`, so remove the extra levels"
    )]
    TooDeep {
        /// [`MAX_MATCHER_DEPTH`].
        max: usize,
    },
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
    /// `step:x` with an unknown step kind.
    #[error("unknown step kind `{0}` in `step:{0}`: expected `step:tool` or `step:final`")]
    UnknownStep(String),
    /// `meta:..` with a bad key or value.
    #[error(transparent)]
    Meta(#[from] MetaError),
}

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
            Self::Exact(name) => target.is_call() && name == target.tool,
            Self::Glob(glob) => target.is_call() && glob.matcher.is_match(target.tool),
            Self::Regex(re) => target.is_call() && re.is_match(target.tool),
            Self::Source(source) => target.is_call() && *source == target.source,
            Self::Step(step) => *step == target.step,
            Self::Meta { key, value } => {
                target.is_call()
                    && target
                        .meta
                        .get(key)
                        .is_some_and(|v| value.as_deref().is_none_or(|want| want == v))
            }
            Self::All(ms) => ms.iter().all(|m| m.matches(target)),
            Self::Any(ms) => ms.iter().any(|m| m.matches(target)),
            Self::Not(m) => !m.matches(target),
        }
    }

    /// What is left of this matcher for `target` when its metadata is not
    /// known (a tool listed in `#[agent]`): a formula over the metadata,
    /// constant when no `meta:` part decides.
    pub fn meta_formula(&self, target: MatchTarget<'_>) -> MetaFormula {
        match self {
            Self::Meta { key, value } if target.is_call() => match value {
                Some(value) => MetaFormula::Is(key.clone(), value.clone()),
                None => MetaFormula::Has(key.clone()),
            },
            Self::All(ms) | Self::Any(ms) => MetaFormula::join(
                ms.iter().map(|m| m.meta_formula(target)).collect(),
                matches!(self, Self::Any(_)),
            ),
            Self::Not(m) => MetaFormula::not(m.meta_formula(target)),
            leaf => MetaFormula::Const(leaf.matches(target)),
        }
    }

    /// Whether a part of this matcher selects by metadata (`meta:..`).
    pub fn selects_meta(&self) -> bool {
        self.parts().iter().any(|m| matches!(m, Self::Meta { .. }))
    }

    /// Whether this matcher is `*` (matches every tool without looking).
    pub fn is_always(&self) -> bool {
        matches!(self, Self::Always)
    }

    /// Whether a part of this matcher selects by step kind (`step:..`):
    /// then it also decides a lifecycle hook's `stop` and `step_end`.
    pub fn selects_steps(&self) -> bool {
        self.parts().iter().any(|m| matches!(m, Self::Step(_)))
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
            Self::Step(step) => write!(f, "step:{}", step.as_str()),
            Self::Meta { key, value: None } => write!(f, "meta:{key}"),
            Self::Meta {
                key,
                value: Some(value),
            } => write!(f, "meta:{key}={value}"),
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
        Self::from_repr(repr, 0)
    }
}

impl Matcher {
    /// The YAML/JSON form at nesting `depth`, at most [`MAX_MATCHER_DEPTH`].
    fn from_repr(repr: MatcherRepr, depth: usize) -> Result<Self, MatcherError> {
        let composite = matches!(repr, MatcherRepr::Composite(_));
        if composite && depth >= MAX_MATCHER_DEPTH {
            return Err(MatcherError::TooDeep {
                max: MAX_MATCHER_DEPTH,
            });
        }
        let list = |ms: Vec<MatcherRepr>| {
            ms.into_iter()
                .map(|m| Self::from_repr(m, depth + 1))
                .collect::<Result<Vec<_>, _>>()
        };
        let m = match repr {
            MatcherRepr::Pattern(p) => Self::parse(&p)?,
            MatcherRepr::Composite(Composite::All(ms)) => Self::All(list(ms)?),
            MatcherRepr::Composite(Composite::Any(ms)) => Self::Any(list(ms)?),
            MatcherRepr::Composite(Composite::Not(m)) => Self::not(Self::from_repr(*m, depth + 1)?),
        };
        if m.depth() > MAX_MATCHER_DEPTH {
            return Err(MatcherError::TooDeep {
                max: MAX_MATCHER_DEPTH,
            });
        }
        Ok(m)
    }

    /// How many composites (`!`, `all`, `any`) are nested in this matcher
    /// at the deepest point (a plain pattern is 0). Iterative: any matcher
    /// built by hand can be measured.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 0)];
        while let Some((m, d)) = stack.pop() {
            deepest = deepest.max(d);
            match m {
                Self::All(ms) | Self::Any(ms) => stack.extend(ms.iter().map(|m| (m, d + 1))),
                Self::Not(m) => stack.push((m, d + 1)),
                _ => {}
            }
        }
        deepest
    }

    /// This matcher and every part of it, outermost first: each
    /// alternative of `a|b`, `any` and `all`, and the inner pattern of `!p`.
    pub fn parts(&self) -> Vec<&Matcher> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(m) = stack.pop() {
            out.push(m);
            match m {
                Self::All(ms) | Self::Any(ms) => stack.extend(ms.iter().rev()),
                Self::Not(m) => stack.push(m),
                _ => {}
            }
        }
        out
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

    /// Runs `f` on a thread with a 256 KiB stack: a recursive parse of
    /// the inputs below would overflow it.
    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn long_and_deep_matchers_are_errors_on_a_small_stack() {
        let errors = on_small_stack(|| {
            [
                format!("{}shell", "!".repeat(200_000)),
                format!("{}shell", "!".repeat(1_000)),
                format!("{}shell", "!".repeat(MAX_MATCHER_DEPTH + 1)),
                format!("/{}a{}/", "(".repeat(500), ")".repeat(500)),
            ]
            .map(|p| Matcher::parse(&p).unwrap_err())
        });
        assert_eq!(
            errors[0],
            MatcherError::TooLong {
                len: 200_005,
                max: MAX_MATCHER_LEN
            }
        );
        assert_eq!(
            errors[1],
            MatcherError::TooDeep {
                max: MAX_MATCHER_DEPTH
            }
        );
        assert_eq!(
            errors[2],
            MatcherError::TooDeep {
                max: MAX_MATCHER_DEPTH
            }
        );
        assert!(
            matches!(errors[3], MatcherError::InvalidRegex { .. }),
            "{:?}",
            errors[3]
        );
        let deepest = format!("{}shell", "!".repeat(MAX_MATCHER_DEPTH));
        assert_eq!(Matcher::parse(&deepest).unwrap().depth(), MAX_MATCHER_DEPTH);
    }

    #[test]
    fn the_yaml_form_is_depth_limited_too() {
        let mut json = "\"shell\"".to_owned();
        for _ in 0..MAX_MATCHER_DEPTH {
            json = format!("{{\"not\": {json}}}");
        }
        assert!(serde_json::from_str::<Matcher>(&json).is_ok());
        let deeper = format!("{{\"any\": [{json}]}}");
        let e = serde_json::from_str::<Matcher>(&deeper).unwrap_err();
        assert!(e.to_string().contains("nested too deeply"), "{e}");
    }

    #[test]
    fn empty_and_everything_patterns_are_errors() {
        assert_eq!(Matcher::parse("//"), Err(MatcherError::EmptyRegex));
        assert_eq!(Matcher::parse("! //"), Err(MatcherError::EmptyRegex));
        for p in ["/a|/", "/x*/", "/|shell/", "/(?:)/"] {
            assert!(
                matches!(Matcher::parse(p), Err(MatcherError::MatchesEverything(_))),
                "{p}"
            );
        }
        for p in ["{a,}", "x{,b}", "{}", "a{b,,c}"] {
            assert!(
                matches!(
                    Matcher::parse(p),
                    Err(MatcherError::EmptyGlobAlternative(_))
                ),
                "{p}"
            );
        }
        for p in ["!", "a|", "|a", "! ", "a| |b"] {
            assert!(
                matches!(Matcher::parse(p), Err(MatcherError::Empty(_))),
                "{p}"
            );
        }
        // Anchored or non-empty regexes stay.
        for p in ["/^$/", "/^fs__/", "/read|write/"] {
            assert!(Matcher::parse(p).is_ok(), "{p}");
        }
    }

    #[test]
    fn parts_lists_every_alternative_and_negated_pattern() {
        let m = Matcher::all([
            Matcher::parse("!shel").unwrap(),
            Matcher::parse("a|b*").unwrap(),
        ]);
        let parts: Vec<String> = m.parts().iter().map(|p| p.to_string()).collect();
        assert_eq!(
            parts,
            ["all(!shel, a|b*)", "!shel", "shel", "a|b*", "a", "b*"]
        );
    }

    #[test]
    fn step_parts_select_by_step_kind_and_name_parts_select_only_calls() {
        let final_step = MatchTarget::step(StepKind::Final);
        let tool_step = MatchTarget::step(StepKind::Tool);
        let m = Matcher::parse("step:final").unwrap();
        assert!(m.matches(final_step));
        assert!(!m.matches(tool_step));
        assert!(!m.matches(t("shell")));
        let m = Matcher::parse("step:tool").unwrap();
        assert!(m.matches(t("shell")) && m.matches(tool_step));
        assert!(!m.matches(final_step));
        // A name, glob, regex or source never selects a step as a whole.
        for p in ["shell", "sh*", "/^$/", "source:function"] {
            let m = Matcher::parse(p).unwrap();
            assert!(!m.matches(final_step) && !m.matches(tool_step), "{p}");
        }
        let m = Matcher::parse("shell|step:final").unwrap();
        assert!(m.selects_steps());
        assert!(m.matches(t("shell")) && m.matches(final_step) && !m.matches(t("ls")));
        assert!(!Matcher::parse("shell").unwrap().selects_steps());
        assert_eq!(
            Matcher::parse("step:answer").unwrap_err().to_string(),
            "unknown step kind `answer` in `step:answer`: expected `step:tool` or `step:final`"
        );
    }

    #[test]
    fn meta_parts_select_by_declared_metadata() {
        let high = ToolMeta::from_static(&[("risk", "high"), ("kind", "write")]);
        let low = ToolMeta::from_static(&[("risk", "low")]);
        let none = ToolMeta::EMPTY;
        let at = |meta| MatchTarget::new("x", ToolSource::Function).with_meta(meta);
        let cases: &[(&str, [bool; 3])] = &[
            ("meta:risk", [true, true, false]),
            ("meta:risk=high", [true, false, false]),
            ("meta: risk = high ", [true, false, false]),
            ("!meta:risk=high", [false, true, true]),
            ("meta:kind|meta:risk=low", [true, true, false]),
            ("meta:risk=very high", [false, false, false]),
        ];
        for (pattern, want) in cases {
            let m = Matcher::parse(pattern).unwrap();
            let got = [&high, &low, &none].map(|meta| m.matches(at(meta)));
            assert_eq!(&got, want, "{pattern}");
        }
        // A step as a whole has no metadata.
        let m = Matcher::parse("meta:risk").unwrap();
        assert!(!m.matches(MatchTarget::step(StepKind::Tool)));
        assert!(m.selects_meta() && !Matcher::parse("risk").unwrap().selects_meta());
    }

    #[test]
    fn bad_meta_parts_are_errors() {
        let err = |p: &str| Matcher::parse(p).unwrap_err().to_string();
        assert_eq!(
            err("meta:"),
            "empty metadata key: write `meta:key` or `meta:key=value`, as in `meta:risk=high`"
        );
        assert_eq!(err("meta:=high"), err("meta:"));
        assert_eq!(
            err("meta:ri$k"),
            "metadata key `ri$k` has `$`: a key is ASCII letters, digits, `_`, `-` and `.`, as in `risk` or `data.kind`"
        );
        assert_eq!(
            err("meta:risk="),
            "empty value in `meta:risk=`: write `meta:risk` for any value of `risk`, or give the value, as in `meta:risk=high`"
        );
        assert_eq!(
            err("meta:risk=a\u{7}b"),
            "metadata value `a\u{7}b` cannot hold `|`, a control character or leading or trailing space"
        );
        // `|` separates alternatives: `meta:a=b|c` is `meta:a=b` or `c`.
        assert!(matches!(Matcher::parse("meta:a=b|c"), Ok(Matcher::Any(v)) if v.len() == 2));
    }

    #[test]
    fn unknown_metadata_leaves_a_formula() {
        let t = MatchTarget::new("shell", ToolSource::Function);
        let f = |p: &str| Matcher::parse(p).unwrap().meta_formula(t);
        assert_eq!(f("shell"), MetaFormula::Const(true));
        assert_eq!(f("ls|source:mcp"), MetaFormula::Const(false));
        assert_eq!(
            f("meta:risk=high"),
            MetaFormula::Is("risk".into(), "high".into())
        );
        assert_eq!(f("shell|meta:risk"), MetaFormula::Const(true));
        assert_eq!(f("ls|meta:risk"), MetaFormula::Has("risk".into()));
        assert_eq!(
            f("!meta:risk"),
            MetaFormula::Not(Box::new(MetaFormula::Has("risk".into())))
        );
    }

    #[test]
    fn display_round_trips() {
        for p in [
            "*",
            "a",
            "a_*",
            "a|b*",
            "/^x$/",
            "source:agent",
            "!a",
            "step:final",
            "!step:tool",
            "meta:risk",
            "meta:risk=high",
            "!meta:kind=write|ls",
        ] {
            let m = Matcher::parse(p).unwrap();
            assert_eq!(m.to_string(), p);
            assert_eq!(Matcher::parse(&m.to_string()).unwrap(), m);
        }
    }
}
