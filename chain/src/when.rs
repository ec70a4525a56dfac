//! Hooks gated by a predicate evaluated on every call: how a hook with a
//! matcher applies to tools discovered at run time.

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::hook::{Handler, Hook, Next};
use crate::matcher::Matcher;
use crate::predicate::Predicate;

/// A hook gated by a matcher evaluated on every call: when the matcher
/// selects the call the hook runs, otherwise the call goes straight to
/// `next` as if the hook were not there.
///
/// This is how a hook declared with `match = "..."` applies to tools
/// discovered at run time (MCP tools); for statically known tools the code
/// generator resolves the match ahead of time instead.
///
/// ```
/// use hookwire::When;
/// use hookwire::{Decision, HookError, Pre, PreHook, ToolArgs, ToolContext};
///
/// struct Block;
/// impl PreHook for Block {
///     async fn before(&self, _: &mut ToolContext, _: &mut ToolArgs) -> Result<Decision, HookError> {
///         Ok(Decision::Deny("not today".into()))
///     }
/// }
///
/// let hook = When::matching("everything__get-env|*__delete_*", Pre(Block)).unwrap();
/// // Or any predicate on the context:
/// let on_time_server = When::new(|cx: &ToolContext| cx.server() == Some("time"), Pre(Block));
/// # let _ = (hook, on_time_server);
/// ```
#[derive(Debug, Clone)]
pub struct When<M, H> {
    matcher: M,
    hook: H,
}

impl<M, H> When<M, H> {
    /// `hook`, applied only to the calls `matcher` selects.
    pub const fn new(matcher: M, hook: H) -> Self {
        Self { matcher, hook }
    }
}

impl<H> When<Matcher, H> {
    /// `hook`, applied only to the calls the matcher `pattern` selects (the
    /// [matcher syntax](crate::matcher::Matcher): `name`, `a|b`, globs,
    /// `/regex/`, `source:mcp`, `!pattern`).
    pub fn matching(pattern: &str, hook: H) -> Result<Self, crate::matcher::MatcherError> {
        Matcher::parse(pattern).map(|matcher| Self::new(matcher, hook))
    }
}

impl<M: Predicate<ToolContext>, H: Hook> Hook for When<M, H> {
    const REWRITES: bool = H::REWRITES;
    const PHASE: hookwire_spec::HookKind = H::PHASE;

    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        if self.matcher.test(cx) {
            self.hook.around(cx, args, next).await
        } else {
            next.run(cx, args).await
        }
    }

    fn name(&self) -> &'static str {
        self.hook.name()
    }
}
