//! [`ApprovalView`]: what approval knows of one tool besides its name: the
//! context its approver is shown ([`Tool::approval_metadata`]) and the
//! argument type an approval with edited arguments must fit.

use std::panic::AssertUnwindSafe;

use serde_json::Value;

use crate::call::ToolArgs;
use crate::error::{ToolError, panic_message};
use crate::tool::Tool;

/// What approval knows of one tool: the metadata its approver is shown
/// ([`ApprovalRequest::metadata`](super::ApprovalRequest::metadata)) and
/// the argument type that edited arguments
/// ([`ApprovalDecision::ApproveWith`](super::ApprovalDecision::ApproveWith))
/// must deserialize into before the call runs.
///
/// Every gate finds it where it asks: the loop's gate through
/// [`ToolSet::approval_view`](crate::ToolSet::approval_view), a chain's
/// gate through the rest of its chain
/// ([`Handler::approval_view`](crate::Handler::approval_view), which
/// [`ToolHandler`](crate::ToolHandler) answers). Two function pointers:
/// copying it costs nothing, and nothing runs until a gate asks.
///
/// ```
/// use hookwire::approval::ApprovalView;
/// use hookwire::{FnTool, Json, ToolArgs};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct A { x: i64 }
/// let view = ApprovalView::of::<FnTool<A, fn(A) -> std::future::Ready<Json<i64>>>>();
/// assert!(view.check(&ToolArgs::from_json(r#"{"x": 1}"#), "t").is_ok());
/// let refused = view.check(&ToolArgs::from_json(r#"{"x": "one"}"#), "t").unwrap_err();
/// assert!(refused.to_string().contains("`x`"), "{refused}");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ApprovalView {
    metadata: fn(&ToolArgs) -> Option<Value>,
    check: fn(&ToolArgs, &str) -> Result<(), ToolError>,
}

impl ApprovalView {
    /// The view of the tool `T`: its [`Tool::approval_metadata`], and its
    /// [`Tool::Args`] as the type edited arguments must fit.
    pub fn of<T: Tool>() -> Self {
        Self {
            metadata: metadata_of::<T>,
            check: check_of::<T>,
        }
    }

    /// The view of a tool whose arguments are any JSON object (an MCP
    /// tool's): no metadata; edited arguments must be an object.
    pub fn object() -> Self {
        Self {
            metadata: |_| None,
            check: |_, _| Ok(()),
        }
    }

    /// What the approver is shown about a call with `args` besides the
    /// arguments: `None` when the tool declares nothing, when the
    /// arguments do not fit its type, or when its function panicked.
    pub fn metadata(&self, args: &ToolArgs) -> Option<Value> {
        (self.metadata)(args)
    }

    /// Whether `args` fit the tool's argument type: the error names the
    /// field that does not ([`ToolError::InvalidArguments`]).
    pub fn check(&self, args: &ToolArgs, tool: &str) -> Result<(), ToolError> {
        (self.check)(args, tool)
    }
}

/// [`Tool::approval_metadata`] of `T` on `args`, parsed into its type; a
/// panic in the user's function (or in the arguments' `Deserialize`) shows
/// no metadata and is logged.
fn metadata_of<T: Tool>(args: &ToolArgs) -> Option<Value> {
    let shown = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let typed = args.parse::<T::Args>("").ok()?;
        T::approval_metadata(&typed)
    }));
    shown.unwrap_or_else(|payload| {
        tracing::warn!(
            target: "hookwire::audit",
            panic = %panic_message(&*payload),
            "approval metadata panicked; the approver is shown none"
        );
        None
    })
}

/// Whether `args` deserialize into `T`'s arguments; a panic in their
/// `Deserialize` refuses them.
fn check_of<T: Tool>(args: &ToolArgs, tool: &str) -> Result<(), ToolError> {
    std::panic::catch_unwind(AssertUnwindSafe(|| args.parse::<T::Args>(tool).map(drop)))
        .unwrap_or_else(|payload| {
            Err(ToolError::invalid_arguments(
                tool,
                None,
                format!("their `Deserialize` panicked: {}", panic_message(&*payload)),
            ))
        })
}
