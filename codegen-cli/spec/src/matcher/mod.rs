//! Tool matchers: which tools a hook applies to.
//!
//! * this module: the [`Matcher`] itself, and how to build composites;
//! * `target`: what a matcher is evaluated against ([`MatchTarget`]);
//! * `parse`: the string syntax; `repr`: the YAML/JSON form;
//! * `eval`: whether a matcher selects a target, and its parts;
//! * `display`: the canonical string form;
//! * `error`: why a pattern is refused ([`MatcherError`]).

mod display;
mod error;
mod eval;
mod parse;
mod repr;
mod target;

pub use error::MatcherError;
pub use target::{MatchTarget, StepKind};

use super::ToolSource;

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

impl Matcher {
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
}

#[cfg(test)]
mod tests;
