//! The canonical string form of a matcher, which is also its equality.

use std::fmt;

use super::Matcher;

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
