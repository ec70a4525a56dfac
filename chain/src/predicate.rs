//! [`Predicate`]: one predicate for every "does this apply?" question.

use std::sync::LazyLock;

use crate::context::ToolContext;
use crate::matcher::{MatchTarget, Matcher};

/// One predicate for every "does this apply?" question: which calls a
/// matched hook runs on, which tools a lifecycle hook's tool events fire
/// for, and which calls need approval.
///
/// | where | subject `T` | typical predicates |
/// |---|---|---|
/// | [`When`](crate::When): a hook gated per call | [`ToolContext`] | a [`Matcher`], `\|cx: &ToolContext\| ..` |
/// | `hookwire::agent::lifecycle::ForTools`: a lifecycle hook's tool events | [`MatchTarget`] (the tool's name, source and metadata) | a [`Matcher`], `\|t: &MatchTarget<'_>\| ..` |
/// | [`NeedsApproval`](crate::approve::NeedsApproval): a chain's approval gate | the arguments as a JSON [`Value`](serde_json::Value) | `true`, `\|args: &Value\| ..` |
/// | `#[tool(needs_approval = f)]` | the tool's typed arguments, [`ArgsOf<tool>`](crate::ArgsOf) | `fn f(args: &ArgsOf<tool>) -> bool` |
///
/// Any `Fn(&T) -> bool` is a predicate over `T`, a `bool` is the constant
/// one (always or never), and a [`Matcher`] selects tools by name and
/// source.
///
/// ```
/// use hookwire::matcher::Predicate;
/// use hookwire::matcher::{MatchTarget, Matcher};
/// use hookwire::ToolSource;
///
/// let reads = Matcher::parse("read_*").unwrap();
/// let from_mcp = |t: &MatchTarget<'_>| t.source == ToolSource::Mcp;
/// let target = MatchTarget::new("read_file", ToolSource::Function);
/// assert!(reads.test(&target));
/// assert!(!from_mcp.test(&target));
/// assert!(true.test(&target));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a predicate over `{T}`",
    label = "expected `fn(&{T}) -> bool`",
    note = "a predicate over `{T}` is a function or closure `Fn(&{T}) -> bool`, a constant `bool`, or (over tools) a `hookwire::matcher::Matcher`"
)]
pub trait Predicate<T: ?Sized>: Send + Sync {
    /// Whether `subject` is selected.
    fn test(&self, subject: &T) -> bool;
}

#[diagnostic::do_not_recommend]
impl<T: ?Sized, F: Fn(&T) -> bool + Send + Sync> Predicate<T> for F {
    fn test(&self, subject: &T) -> bool {
        self(subject)
    }
}

/// The constant predicate: `true` selects everything, `false` nothing.
impl<T: ?Sized> Predicate<T> for bool {
    fn test(&self, _subject: &T) -> bool {
        *self
    }
}

/// A predicate decided at compile time: what generated agents gate a hook
/// with when a `meta:` matcher's answer comes from a tool's `Tool::META`
/// (the optimizer removes the test).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Const<const B: bool>;

impl<T: ?Sized, const B: bool> Predicate<T> for Const<B> {
    fn test(&self, _subject: &T) -> bool {
        B
    }
}

/// A matcher over a tool's name and source.
impl<'a> Predicate<MatchTarget<'a>> for Matcher {
    fn test(&self, target: &MatchTarget<'a>) -> bool {
        self.matches(*target)
    }
}

/// A matcher over the tool a call's context is for.
impl Predicate<ToolContext> for Matcher {
    fn test(&self, cx: &ToolContext) -> bool {
        self.matches(MatchTarget::new(cx.tool(), cx.source()).with_meta(cx.meta()))
    }
}

/// A matcher compiled once, in a `static` (what generated code declares for
/// each agent-level hook with a matcher). `None`, a matcher that failed to
/// parse, selects nothing; the front ends reject such matchers before any
/// code is generated.
impl<T: ?Sized> Predicate<T> for &'static LazyLock<Option<Matcher>>
where
    Matcher: Predicate<T>,
{
    fn test(&self, subject: &T) -> bool {
        LazyLock::force(self)
            .as_ref()
            .is_some_and(|m| m.test(subject))
    }
}

/// A matcher the generated code builds with its agent (a static tool's
/// hook whose matcher depends on the tool's source). `None`, a matcher
/// that failed to parse, selects nothing; the front ends reject such
/// matchers before any code is generated.
impl<T: ?Sized> Predicate<T> for Option<Matcher>
where
    Matcher: Predicate<T>,
{
    fn test(&self, subject: &T) -> bool {
        self.as_ref().is_some_and(|m| m.test(subject))
    }
}
