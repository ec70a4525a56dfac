//! A tool's `on_error` mapping: what the model reads when the tool fails.

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::hook::Handler;
use crate::tool::IntoOutcome;

/// A function that maps a tool's error to what the model reads: the
/// `on_error = path` of `#[hookwire::tool]`.
///
/// Any `fn(ToolError) -> R` where `R:` [`IntoOutcome`] is one: return a
/// `String` or a [`ToolResult`](crate::ToolResult) to recover (the model
/// reads it as the tool's result), or an `Outcome` / `Result<_, ToolError>`
/// to keep an error with another message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an `on_error` mapping",
    label = "expected `fn(ToolError) -> R` where `R: IntoOutcome`",
    note = "an `on_error` mapping is a function such as `fn on_error(error: hookwire::ToolError) -> String`; it may return `String`, `ToolResult`, `Json<T>`, a number, a `bool` or `Outcome`"
)]
pub trait OnError: Send + Sync {
    /// Maps the error of the tool named `tool`.
    fn on_error(&self, error: ToolError, tool: &str) -> Outcome;
}

#[diagnostic::do_not_recommend]
impl<F, R> OnError for F
where
    F: Fn(ToolError) -> R + Send + Sync,
    R: IntoOutcome,
{
    fn on_error(&self, error: ToolError, tool: &str) -> Outcome {
        self(error).into_outcome(tool)
    }
}

/// An `on_error` mapping that gives the model the error's message as a
/// plain (non-error) text result.
pub fn error_text(error: ToolError) -> String {
    error.to_string()
}

/// Maps `error` of the tool `tool` with `map`: what generated `on_error`
/// code calls, so that a mapping of the wrong type is an error on its path.
#[inline]
pub fn map_error<F: OnError>(map: F, error: ToolError, tool: &str) -> Outcome {
    map.on_error(error, tool)
}

/// The `on_error` mapping as a handler: runs `inner`, and gives its error
/// (bad arguments, the tool's own error, a panic in the tool) to `E`.
/// Denials of the tool's hooks and of its approval gate are outside it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MapError<E, N> {
    map: E,
    inner: N,
}

impl<E, N> MapError<E, N> {
    /// `map` around `inner`.
    pub const fn new(map: E, inner: N) -> Self {
        Self { map, inner }
    }

    /// The inner handler.
    pub fn inner(&self) -> &N {
        &self.inner
    }
}

impl<E: OnError, N: Handler> Handler for MapError<E, N> {
    async fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> Outcome {
        match self.inner.call(cx, args).await {
            Err(error) => self.map.on_error(error, cx.tool()),
            ok => ok,
        }
    }

    fn tool_view(&self) -> Option<crate::ToolView> {
        self.inner.tool_view()
    }
}
