//! Why a matcher is refused.

use crate::meta::MetaError;

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
    /// A matcher longer than [`MAX_MATCHER_LEN`](super::MAX_MATCHER_LEN).
    #[error("matcher too long: {len} bytes, at most {max}")]
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// [`MAX_MATCHER_LEN`](super::MAX_MATCHER_LEN).
        max: usize,
    },
    /// A matcher nested deeper than [`MAX_MATCHER_DEPTH`](super::MAX_MATCHER_DEPTH).
    #[error(
        "matcher nested too deeply: more than {max} levels of `!`, `not`, `any` or `all`; `!!p` is `p`, so remove the extra levels"
    )]
    TooDeep {
        /// [`MAX_MATCHER_DEPTH`](super::MAX_MATCHER_DEPTH).
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
    UnknownSource(#[from] crate::UnknownToolSource),
    /// `step:x` with an unknown step kind.
    #[error("unknown step kind `{0}` in `step:{0}`: expected `step:tool` or `step:final`")]
    UnknownStep(String),
    /// `meta:..` with a bad key or value.
    #[error(transparent)]
    Meta(#[from] MetaError),
}
