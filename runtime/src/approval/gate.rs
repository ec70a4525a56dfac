//! The per-tool approval gate of a chain: [`NeedsApproval`] and its rule.

use serde_json::Value;

use super::ApprovalDecision;
use crate::call::Outcome;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::hook::{Handler, Hook, Next};

/// When a tool call needs approval: always, never, or by a predicate on
/// its arguments.
pub trait ApprovalRule: Send + Sync {
    /// Whether a call with these arguments needs approval.
    fn needs_approval(&self, args: &Value) -> bool;
}

impl ApprovalRule for bool {
    fn needs_approval(&self, _args: &Value) -> bool {
        *self
    }
}

/// A predicate on the arguments as an [`ApprovalRule`].
#[derive(Debug, Clone, Copy)]
pub struct When<F>(pub F);

impl<F: Fn(&Value) -> bool + Send + Sync> ApprovalRule for When<F> {
    fn needs_approval(&self, args: &Value) -> bool {
        (self.0)(args)
    }
}

/// Per-tool `needs_approval` as an around-hook: when the rule says so, the
/// context's approver is asked before the rest of the chain runs; without
/// an approver, or on a denial, the call is denied and the tool never runs.
/// Arguments that do not parse as a JSON object always need approval (fail
/// closed).
///
/// ```
/// use hookwire::approval::{NeedsApproval, When};
/// use hookwire::{chain, FnTool, Json, ToolHandler};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct A { path: String }
/// let delete = FnTool::new("delete", "Deletes a file.", |a: A| async move { Json(a.path) });
/// let gated = chain!(
///     NeedsApproval::new(When(|args: &serde_json::Value| args["path"].as_str() != Some("/tmp/x")))
///     => ToolHandler(delete)
/// );
/// # let _ = gated;
/// ```
#[derive(Debug, Clone, Copy)]
pub struct NeedsApproval<R> {
    rule: R,
}

impl<R: ApprovalRule> NeedsApproval<R> {
    /// A gate with `rule` (`true`, `false`, or [`When`]).
    pub fn new(rule: R) -> Self {
        Self { rule }
    }
}

impl<R: ApprovalRule> Hook for NeedsApproval<R> {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        mut args: crate::call::ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let reason = match args.object_mut() {
            Ok(map) => {
                // The rule reads a `Value`: the map is moved into one and
                // back, not copied.
                let value = Value::Object(std::mem::take(map));
                let needed = self.rule.needs_approval(&value);
                if let Value::Object(value) = value {
                    *map = value;
                }
                if !needed {
                    return next.run(cx, args).await;
                }
                format!("`{}` needs approval", cx.tool())
            }
            Err(_) => format!(
                "the arguments of `{}` do not parse, so the call needs approval",
                cx.tool()
            ),
        };
        match crate::prepost::ask(cx, &args, &reason).await {
            ApprovalDecision::Approve => next.run(cx, args).await,
            ApprovalDecision::Deny(reason) => Err(ToolError::Denied {
                reason,
                hook: Some("needs_approval".into()),
            }),
        }
    }

    fn name(&self) -> &'static str {
        "needs_approval"
    }
}
