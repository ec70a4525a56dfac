//! Tool metadata: the `key = "value"` pairs a tool or a child agent
//! declares (`#[tool(meta(risk = "high"))]`, `agents = [X(meta(..))]`, a
//! card's `meta:`), which `meta:key` and `meta:key=value` matchers select.

use std::fmt;
use std::sync::Arc;

/// The metadata of one tool: `key = "value"` pairs, in declared order.
///
/// A static tool's is a `&'static` slice ([`Tool::META`], cheap to copy);
/// a tool found at run time (an MCP tool's annotations) shares its pairs.
///
/// [`Tool::META`]: https://docs.rs/hookwire/latest/hookwire/trait.Tool.html#associatedconstant.META
///
/// ```
/// use hookwire_spec::ToolMeta;
///
/// const META: ToolMeta = ToolMeta::from_static(&[("risk", "high")]);
/// assert_eq!(META.get("risk"), Some("high"));
/// assert_eq!(ToolMeta::from_pairs([("kind", "write")]).get("kind"), Some("write"));
/// assert!(ToolMeta::EMPTY.is_empty());
/// ```
#[derive(Clone, Default)]
pub struct ToolMeta(Repr);

#[derive(Clone)]
enum Repr {
    Static(&'static [(&'static str, &'static str)]),
    Shared(Arc<[(String, String)]>),
}

impl Default for Repr {
    fn default() -> Self {
        Self::Static(&[])
    }
}

impl ToolMeta {
    /// No metadata.
    pub const EMPTY: Self = Self(Repr::Static(&[]));

    /// The pairs of a static declaration.
    pub const fn from_static(pairs: &'static [(&'static str, &'static str)]) -> Self {
        Self(Repr::Static(pairs))
    }

    /// Pairs known at run time.
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let pairs: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        if pairs.is_empty() {
            return Self::EMPTY;
        }
        Self(Repr::Shared(pairs.into()))
    }

    /// The value of `key`, if the tool declares it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Every pair, in declared order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        let (st, shared): (StaticPairs<'_>, &[(String, String)]) = match &self.0 {
            Repr::Static(pairs) => (pairs, &[]),
            Repr::Shared(pairs) => (&[], pairs),
        };
        st.iter()
            .map(|(k, v)| (*k, *v))
            .chain(shared.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// Whether the tool declares nothing.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }
}

/// Borrowed `key = "value"` pairs.
type StaticPairs<'a> = &'a [(&'a str, &'a str)];

impl PartialEq for ToolMeta {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for ToolMeta {}

impl fmt::Debug for ToolMeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Why a metadata key or value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetaError {
    /// An empty key (`meta:`, `meta:=x`).
    #[error("empty metadata key: write `meta:key` or `meta:key=value`, as in `meta:risk=high`")]
    EmptyKey,
    /// A key with a character other than ASCII letters, digits, `_`, `-`, `.`.
    #[error(
        "metadata key `{0}` has `{1}`: a key is ASCII letters, digits, `_`, `-` and `.`, as in `risk` or `data.kind`"
    )]
    BadKey(String, char),
    /// `meta:key=` with nothing after `=`.
    #[error(
        "empty value in `meta:{0}=`: write `meta:{0}` for any value of `{0}`, or give the value, as in `meta:{0}=high`"
    )]
    EmptyValue(String),
    /// A value with `|`, a control character, or space at either end.
    #[error(
        "metadata value `{0}` cannot hold `|`, a control character or leading or trailing space"
    )]
    BadValue(String),
    /// A key declared twice on one tool.
    #[error("metadata key `{0}` is declared twice: give each key once")]
    DuplicateKey(String),
    /// A value other than `true` or `false` for a key an MCP tool's
    /// annotations set ([`MCP_HINT_KEYS`]).
    #[error(
        "metadata value `{value}` for `{key}`: `{key}` is an MCP annotation, `true` or `false` (write `meta:{key}=true`)"
    )]
    NotABool {
        /// The key.
        key: String,
        /// The value given.
        value: String,
    },
}

/// The metadata keys an MCP tool's annotations set, each with the hint it
/// comes from (`readOnlyHint` as `read_only`, ...): their values are
/// `true` or `false` only, in a declaration and in a `meta:key=value`
/// matcher alike.
pub const MCP_HINT_KEYS: [(&str, &str); 4] = [
    ("read_only", "readOnlyHint"),
    ("destructive", "destructiveHint"),
    ("idempotent", "idempotentHint"),
    ("open_world", "openWorldHint"),
];

/// Checks one metadata key: non-empty, ASCII letters, digits, `_`, `-`, `.`.
pub fn check_meta_key(key: &str) -> Result<(), MetaError> {
    if key.is_empty() {
        return Err(MetaError::EmptyKey);
    }
    match key
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(c) => Err(MetaError::BadKey(key.to_owned(), c)),
        None => Ok(()),
    }
}

/// Checks the value of `key`: non-empty, no `|` (it separates the
/// alternatives of a matcher), no control character, no space at either
/// end; `true` or `false` for a key of [`MCP_HINT_KEYS`].
///
/// ```
/// use hookwire_spec::check_meta_value;
/// assert!(check_meta_value("destructive", "true").is_ok());
/// assert!(check_meta_value("destructive", "yes").is_err());
/// assert!(check_meta_value("risk", "yes").is_ok());
/// ```
pub fn check_meta_value(key: &str, value: &str) -> Result<(), MetaError> {
    if value.is_empty() {
        return Err(MetaError::EmptyValue(key.to_owned()));
    }
    if value.contains(|c: char| c == '|' || c.is_control()) || value.trim() != value {
        return Err(MetaError::BadValue(value.to_owned()));
    }
    if MCP_HINT_KEYS.iter().any(|(k, _)| *k == key) && !matches!(value, "true" | "false") {
        return Err(MetaError::NotABool {
            key: key.to_owned(),
            value: value.to_owned(),
        });
    }
    Ok(())
}

/// Checks a declaration: every key and value, and no key twice.
pub fn check_meta(pairs: &[(String, String)]) -> Result<(), MetaError> {
    for (i, (key, value)) in pairs.iter().enumerate() {
        check_meta_key(key)?;
        check_meta_value(key, value)?;
        if pairs[..i].iter().any(|(k, _)| k == key) {
            return Err(MetaError::DuplicateKey(key.clone()));
        }
    }
    Ok(())
}

/// What is left of a matcher for one tool whose name and source are known
/// and whose metadata is not (a tool listed in `#[agent]`, whose
/// `#[tool(meta(..))]` the macro cannot see): a formula over its metadata,
/// constants folded. The emitter writes it as a [`MetaExpr`] that the
/// compiler evaluates against the tool's `Tool::META`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetaFormula {
    /// Decided without the metadata.
    Const(bool),
    /// The tool declares `key` (`meta:key`).
    Has(String),
    /// The tool declares `key` with this value (`meta:key=value`).
    Is(String, String),
    /// The inner formula is false.
    Not(Box<MetaFormula>),
    /// Every formula holds.
    All(Vec<MetaFormula>),
    /// At least one formula holds.
    Any(Vec<MetaFormula>),
}

impl MetaFormula {
    /// The answer, when it does not depend on the metadata.
    pub fn as_const(&self) -> Option<bool> {
        match self {
            Self::Const(b) => Some(*b),
            _ => None,
        }
    }

    /// The answer for the pairs `meta`.
    pub fn eval(&self, meta: &ToolMeta) -> bool {
        match self {
            Self::Const(b) => *b,
            Self::Has(key) => meta.get(key).is_some(),
            Self::Is(key, value) => meta.get(key) == Some(value.as_str()),
            Self::Not(f) => !f.eval(meta),
            Self::All(fs) => fs.iter().all(|f| f.eval(meta)),
            Self::Any(fs) => fs.iter().any(|f| f.eval(meta)),
        }
    }

    /// `!f`, folded.
    pub(crate) fn not(f: Self) -> Self {
        match f {
            Self::Const(b) => Self::Const(!b),
            f => Self::Not(Box::new(f)),
        }
    }

    /// `all` (`any` when `any`) of `fs`, folded.
    pub(crate) fn join(fs: Vec<Self>, any: bool) -> Self {
        let mut kept = Vec::new();
        for f in fs {
            match f.as_const() {
                Some(b) if b == any => return Self::Const(any),
                Some(_) => {}
                None => kept.push(f),
            }
        }
        match kept.len() {
            0 => Self::Const(!any),
            1 => kept.pop().unwrap_or(Self::Const(!any)),
            _ if any => Self::Any(kept),
            _ => Self::All(kept),
        }
    }
}

/// A [`MetaFormula`] as a constant the compiler evaluates
/// ([`MetaExpr::eval`] is a `const fn`): what generated agents use to
/// decide, at compile time, which hooks a `meta:` matcher puts in a tool's
/// chain when the tool's metadata is its `Tool::META`.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum MetaExpr<'a> {
    /// A constant.
    Const(bool),
    /// `meta:key`.
    Has(&'a str),
    /// `meta:key=value`.
    Is(&'a str, &'a str),
    /// Negation.
    Not(&'a MetaExpr<'a>),
    /// Every one.
    All(&'a [MetaExpr<'a>]),
    /// At least one.
    Any(&'a [MetaExpr<'a>]),
}

impl MetaExpr<'_> {
    /// Whether the pairs `meta` satisfy the formula.
    pub const fn eval(&self, meta: &[(&str, &str)]) -> bool {
        match self {
            Self::Const(b) => *b,
            Self::Has(key) => lookup(meta, key).is_some(),
            Self::Is(key, value) => match lookup(meta, key) {
                Some(v) => str_eq(v, value),
                None => false,
            },
            Self::Not(f) => !f.eval(meta),
            Self::All(fs) | Self::Any(fs) => {
                let any = matches!(self, Self::Any(_));
                let mut i = 0;
                while i < fs.len() {
                    if fs[i].eval(meta) == any {
                        return any;
                    }
                    i += 1;
                }
                !any
            }
        }
    }
}

/// The value of `key` in `meta` (the first), at compile time.
const fn lookup<'m>(meta: &[(&'m str, &'m str)], key: &str) -> Option<&'m str> {
    let mut i = 0;
    while i < meta.len() {
        if str_eq(meta[i].0, key) {
            return Some(meta[i].1);
        }
        i += 1;
    }
    None
}

/// Byte equality of two strings, at compile time (`==` on `str` is not
/// `const`); the runtime's compile-time name checks use it too.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values_are_checked() {
        assert_eq!(check_meta_key(""), Err(MetaError::EmptyKey));
        assert_eq!(
            check_meta_key("ri sk"),
            Err(MetaError::BadKey("ri sk".into(), ' '))
        );
        assert!(check_meta_key("data.kind-2_x").is_ok());
        assert_eq!(
            check_meta_value("risk", ""),
            Err(MetaError::EmptyValue("risk".into()))
        );
        for v in ["a|b", " high", "high ", "a\nb"] {
            assert_eq!(
                check_meta_value("risk", v),
                Err(MetaError::BadValue(v.into()))
            );
        }
        assert!(check_meta_value("risk", "very high").is_ok());
        let twice = [("a".to_owned(), "1".to_owned()), ("a".into(), "2".into())];
        assert_eq!(check_meta(&twice), Err(MetaError::DuplicateKey("a".into())));
        assert_eq!(
            MetaError::EmptyValue("risk".into()).to_string(),
            "empty value in `meta:risk=`: write `meta:risk` for any value of `risk`, or give the value, as in `meta:risk=high`"
        );
    }

    #[test]
    fn static_and_shared_pairs_read_alike() {
        let st = ToolMeta::from_static(&[("risk", "high"), ("kind", "write")]);
        let shared = ToolMeta::from_pairs([("risk", "high"), ("kind", "write")]);
        assert_eq!(st, shared);
        assert_eq!(shared.get("kind"), Some("write"));
        assert_eq!(shared.get("nope"), None);
        assert_eq!(
            ToolMeta::from_pairs(Vec::<(String, String)>::new()),
            ToolMeta::EMPTY
        );
        assert_eq!(format!("{st:?}"), r#"{"risk": "high", "kind": "write"}"#);
    }

    #[test]
    fn const_expressions_evaluate_at_compile_time() {
        const META: &[(&str, &str)] = &[("risk", "high")];
        const HIGH: bool = MetaExpr::Is("risk", "high").eval(META);
        const LOW: bool = MetaExpr::Is("risk", "low").eval(META);
        const NOT_KIND: bool = MetaExpr::Not(&MetaExpr::Has("kind")).eval(META);
        const ANY: bool = MetaExpr::Any(&[MetaExpr::Has("kind"), MetaExpr::Has("risk")]).eval(META);
        const ALL: bool = MetaExpr::All(&[MetaExpr::Has("kind"), MetaExpr::Has("risk")]).eval(META);
        assert_eq!(
            [HIGH, LOW, NOT_KIND, ANY, ALL],
            [true, false, true, true, false]
        );
        assert!(MetaExpr::All(&[]).eval(&[]) && !MetaExpr::Any(&[]).eval(&[]));
    }

    #[test]
    fn formulas_fold_constants() {
        let has = || MetaFormula::Has("risk".into());
        assert_eq!(
            MetaFormula::join(vec![MetaFormula::Const(false), has()], true),
            has()
        );
        assert_eq!(
            MetaFormula::join(vec![MetaFormula::Const(true), has()], true),
            MetaFormula::Const(true)
        );
        assert_eq!(
            MetaFormula::not(MetaFormula::Const(true)),
            MetaFormula::Const(false)
        );
        assert!(has().eval(&ToolMeta::from_static(&[("risk", "x")])));
    }
}
