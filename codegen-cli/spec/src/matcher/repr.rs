//! The YAML/JSON form of a matcher: a string, or a composite, nested at
//! most [`MAX_MATCHER_DEPTH`] deep.

use super::{MAX_MATCHER_DEPTH, Matcher, MatcherError};

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
