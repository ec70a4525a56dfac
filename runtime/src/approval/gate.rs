//! The approval gate: the one path by which a call that needs approval
//! reaches an approver, and [`NeedsApproval`], the gate in a chain.

use serde_json::Value;

use super::{ApprovalDecision, ApprovalRequest, Approver};
use crate::call::Outcome;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::hook::{Handler, Hook, Next};
use crate::predicate::Predicate;

/// Per-tool `needs_approval` as an around-hook: when its rule (a
/// [`Predicate`] over the arguments: `true`, or a closure) says so, the
/// context's approver is asked before the rest of the chain runs; without
/// an approver, or on a denial, the call is denied and the tool never runs.
/// Arguments that do not parse as a JSON object always need approval (fail
/// closed).
///
/// ```
/// use hookwire::approval::NeedsApproval;
/// use hookwire::{chain, FnTool, Json, ToolHandler};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct A { path: String }
/// let delete = FnTool::new("delete", "Deletes a file.", |a: A| async move { Json(a.path) });
/// let gated = chain!(
///     NeedsApproval::new(|args: &serde_json::Value| args["path"].as_str() != Some("/tmp/x"))
///     => ToolHandler(delete)
/// );
/// # let _ = gated;
/// ```
#[derive(Debug, Clone, Copy)]
pub struct NeedsApproval<R> {
    rule: R,
}

impl<R: Predicate<Value>> NeedsApproval<R> {
    /// A gate with `rule` (`true`, `false`, or a `Fn(&Value) -> bool`).
    pub fn new(rule: R) -> Self {
        Self { rule }
    }
}

impl<R: Predicate<Value>> Hook for NeedsApproval<R> {
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
                let needed = self.rule.test(&value);
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
        let approver = cx.approver().map(|a| &**a);
        let request = ApprovalRequest::for_call(cx, &args, &reason);
        gate(approver, request, "needs_approval").await?;
        next.run(cx, args).await
    }

    fn name(&self) -> &'static str {
        "needs_approval"
    }
}

/// The approval gate: the one path by which a call that needs approval
/// reaches an approver. Every gate goes through it, outermost first:
///
/// 1. the loop's own gate, the outermost layer of every call's chain: a
///    lifecycle `pre_tool_use` hook's [`Decision::Ask`](crate::Decision::Ask),
///    or a tool the run's approval settings name
///    ([`Approvals::require`](super::Approvals::require)); it asks the run's
///    [`Approvals`](super::Approvals), outside the call's time limit;
/// 2. a pre hook's [`Decision::Ask`](crate::Decision::Ask) in the chain;
/// 3. a chain's [`NeedsApproval`].
///
/// The chain's gates ask the context's approver (the run's approvals, or
/// the parent's for a child agent). Without an approver the call is denied
/// (fail closed). Every decision is logged (target `hookwire::audit`,
/// `approval decision`). `Ok` lets the call go on; a denial is
/// [`ToolError::Denied`] naming `hook`.
pub(crate) async fn gate(
    approver: Option<&dyn Approver>,
    request: ApprovalRequest<'_>,
    hook: &'static str,
) -> Result<(), ToolError> {
    let (agent, tool, tool_use_id) = (request.agent, request.tool, request.tool_use_id);
    let decision = match approver {
        Some(approver) => approver.decide(request).await,
        None => ApprovalDecision::Deny(format!(
            "approval required ({}) but no approver is configured",
            request.reason
        )),
    };
    tracing::info!(
        target: "hookwire::audit",
        agent,
        tool,
        tool_use_id,
        decision = match &decision {
            ApprovalDecision::Approve => "approved",
            ApprovalDecision::Deny(_) => "rejected",
        },
        hook = "approver",
        "approval decision"
    );
    match decision {
        ApprovalDecision::Approve => Ok(()),
        ApprovalDecision::Deny(reason) => Err(ToolError::Denied {
            reason,
            hook: Some(hook.into()),
        }),
    }
}
