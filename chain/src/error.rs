//! Errors of a tool call, and how each becomes the result a model reads.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::call::ToolResult;

/// Why a tool call did not produce a normal result.
///
/// Every variant becomes an error result the model can read through
/// [`ToolError::into_result`]; none of them ends the process. Only
/// [`ToolError::Stopped`] also ends the agent's run.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The model's arguments do not fit the tool's schema; the tool never ran.
    ///
    /// Boxed: every layer of a chain moves an [`Outcome`](crate::Outcome),
    /// and this is the largest error.
    #[error("invalid arguments for tool `{}`{}: {}", .0.tool, at(&.0.field), .0.message)]
    InvalidArguments(Box<ArgumentError>),
    /// No tool has this name.
    #[error("unknown tool `{name}`")]
    UnknownTool {
        /// The name the model asked for.
        name: String,
    },
    /// A hook or an approver denied the call; the tool never ran.
    #[error("tool call denied{}: {reason}", by(hook))]
    Denied {
        /// The reason, shown to the model.
        reason: String,
        /// The hook that decided, if a hook did.
        hook: Option<Cow<'static, str>>,
    },
    /// A hook asked to stop the run; the tool never ran and the run ends.
    #[error("run stopped{}: {reason}", by(hook))]
    Stopped {
        /// The reason.
        reason: String,
        /// The hook that decided.
        hook: Option<Cow<'static, str>>,
    },
    /// A tool, a hook or a whole chain took longer than allowed.
    #[error("{what} timed out after {}", ms(after))]
    TimedOut {
        /// What timed out (`tool add_one`, `hook audit`).
        what: String,
        /// The limit.
        after: Duration,
    },
    /// A hook returned an error or panicked, under the `fail_closed` policy.
    #[error("hook `{hook}` failed: {message}")]
    HookFailed {
        /// The hook.
        hook: Cow<'static, str>,
        /// What went wrong.
        message: String,
    },
    /// The tool itself returned an error or panicked.
    #[error("tool `{tool}` failed: {source}")]
    ToolFailed {
        /// The tool.
        tool: String,
        /// The underlying error.
        #[source]
        source: Arc<dyn StdError + Send + Sync>,
        /// Whether trying again may help (see [`ToolError::is_retryable`]).
        retryable: bool,
    },
    /// The call was cancelled before it finished.
    #[error("tool call cancelled")]
    Cancelled,
}

/// What is wrong with a call's arguments: the payload of
/// [`ToolError::InvalidArguments`] (made with [`ToolError::invalid_arguments`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArgumentError {
    /// The tool.
    pub tool: String,
    /// The offending field as a path (`items[2].qty`), if known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

#[inline]
fn at(field: &Option<String>) -> String {
    field
        .as_ref()
        .map(|f| format!(" at `{f}`"))
        .unwrap_or_default()
}

#[inline]
fn by(hook: &Option<Cow<'static, str>>) -> String {
    hook.as_ref()
        .map(|h| format!(" by `{h}`"))
        .unwrap_or_default()
}

#[inline]
fn ms(d: &Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// An error that carries only a message: what a `Display`-only error from a
/// tool turns into.
#[derive(Debug, Clone)]
pub struct ErrorMessage(pub String);

impl fmt::Display for ErrorMessage {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl StdError for ErrorMessage {}

impl ToolError {
    /// An invalid-arguments error.
    pub fn invalid_arguments(
        tool: impl Into<String>,
        field: Option<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::InvalidArguments(Box::new(ArgumentError {
            tool: tool.into(),
            field,
            message: message.into(),
        }))
    }

    /// A denial with a reason, not attributed to a hook.
    pub fn denied(reason: impl Into<String>) -> Self {
        Self::Denied {
            reason: reason.into(),
            hook: None,
        }
    }

    /// A tool failure from any error; not retryable.
    pub fn tool_failed(
        tool: impl Into<String>,
        source: impl StdError + Send + Sync + 'static,
    ) -> Self {
        Self::ToolFailed {
            tool: tool.into(),
            source: Arc::new(source),
            retryable: false,
        }
    }

    /// A tool failure with only a message; `retryable` says whether a retry
    /// hook may try again.
    pub fn tool_message(
        tool: impl Into<String>,
        message: impl fmt::Display,
        retryable: bool,
    ) -> Self {
        Self::ToolFailed {
            tool: tool.into(),
            source: Arc::new(ErrorMessage(message.to_string())),
            retryable,
        }
    }

    #[doc(hidden)]
    #[inline]
    pub fn serialize(e: serde_json::Error) -> Self {
        Self::tool_failed("", e)
    }

    /// Whether a retry may succeed: timeouts, and tool failures marked
    /// retryable. Denials, bad arguments and unknown tools never are.
    #[inline]
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::TimedOut { .. } => true,
            Self::ToolFailed { retryable, .. } => *retryable,
            _ => false,
        }
    }

    /// Whether this error ends the agent's run (a hook decided to stop).
    #[inline]
    pub fn stops_run(&self) -> bool {
        matches!(self, Self::Stopped { .. })
    }

    /// The hook this error is attributed to, if any.
    #[inline]
    pub fn hook(&self) -> Option<&str> {
        match self {
            Self::Denied { hook, .. } | Self::Stopped { hook, .. } => hook.as_deref(),
            Self::HookFailed { hook, .. } => Some(hook),
            _ => None,
        }
    }

    /// A short name for the kind of error, used in traces.
    #[inline]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::InvalidArguments(_) => "invalid_arguments",
            Self::UnknownTool { .. } => "unknown_tool",
            Self::Denied { .. } => "denied",
            Self::Stopped { .. } => "stopped",
            Self::TimedOut { .. } => "timed_out",
            Self::HookFailed { .. } => "hook_failed",
            Self::ToolFailed { .. } => "tool_failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Fills in the tool's name where the error was raised without it.
    #[doc(hidden)]
    #[inline]
    pub fn with_tool(mut self, name: &str) -> Self {
        let tool = match &mut self {
            Self::InvalidArguments(e) => &mut e.tool,
            Self::ToolFailed { tool, .. } => tool,
            _ => return self,
        };
        if tool.is_empty() {
            name.clone_into(tool);
        }
        self
    }

    /// The one conversion from an error to what the model reads: an error
    /// result whose text is this error's message.
    #[inline]
    pub fn into_result(self) -> ToolResult {
        ToolResult::error(self.to_string())
    }
}

impl From<ToolError> for ToolResult {
    #[inline]
    fn from(error: ToolError) -> Self {
        error.into_result()
    }
}

/// The error a hook returns. Any `std::error::Error` converts into it with
/// `?`, and so does a plain message ([`HookError::msg`]).
///
/// Like `anyhow::Error`, it deliberately does not implement
/// `std::error::Error` itself, so that the blanket conversion can exist.
pub struct HookError(Box<dyn StdError + Send + Sync>);

impl HookError {
    /// A hook error with a message.
    pub fn msg(message: impl fmt::Display) -> Self {
        Self(Box::new(ErrorMessage(message.to_string())))
    }

    /// The underlying error.
    #[inline]
    pub fn as_error(&self) -> &(dyn StdError + Send + Sync + 'static) {
        &*self.0
    }

    /// The arguments error it carries, if it is one: a typed hook that
    /// cannot read the arguments reports them invalid, as the tool would,
    /// rather than failing as a hook.
    #[inline]
    pub(crate) fn into_invalid_arguments(self) -> Result<ToolError, Self> {
        if !matches!(
            self.0.downcast_ref::<ToolError>(),
            Some(ToolError::InvalidArguments(_))
        ) {
            return Err(self);
        }
        self.0.downcast::<ToolError>().map(|e| *e).map_err(Self)
    }
}

impl<E: StdError + Send + Sync + 'static> From<E> for HookError {
    #[inline]
    fn from(error: E) -> Self {
        Self(Box::new(error))
    }
}

impl fmt::Debug for HookError {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for HookError {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Renders a caught panic's payload as a message.
#[doc(hidden)]
#[inline]
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        format!("panicked: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_reads_well_as_a_result() {
        let cases = [
            (
                ToolError::invalid_arguments("add", Some("x".into()), "expected u32"),
                "invalid arguments for tool `add` at `x`: expected u32",
            ),
            (
                ToolError::UnknownTool {
                    name: "nope".into(),
                },
                "unknown tool `nope`",
            ),
            (
                ToolError::Denied {
                    reason: "shell is off".into(),
                    hook: Some("guard".into()),
                },
                "tool call denied by `guard`: shell is off",
            ),
            (
                ToolError::TimedOut {
                    what: "hook `slow`".into(),
                    after: Duration::from_millis(20),
                },
                "hook `slow` timed out after 20 ms",
            ),
            (
                ToolError::tool_message("t", "boom", true),
                "tool `t` failed: boom",
            ),
        ];
        for (error, text) in cases {
            let result = error.into_result();
            assert!(result.is_error);
            assert_eq!(result.text_content(), text);
        }
    }
}
