//! The approval gate: the one path by which a call that needs approval
//! reaches an approver, and [`NeedsApproval`], the gate in a chain.

use serde_json::Value;

use super::{
    ApprovalDecision, ApprovalNote, ApprovalRequest, Approver, CallKey, DecidedBy, PENDING_REASON,
    ToolView,
};
use crate::call::{Outcome, ToolArgs};
use crate::channel::CallReport;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::hook::{Handler, Hook, Next};
use crate::predicate::Predicate;
use crate::scope::CallScope;

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
    #[inline]
    pub fn new(rule: R) -> Self {
        Self { rule }
    }
}

impl<R: Predicate<Value>> Hook for NeedsApproval<R> {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        mut args: ToolArgs,
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
        gate_call(cx, &mut args, &reason, "needs_approval", next.tool_view()).await?;
        next.run(cx, args).await
    }

    #[inline]
    fn name(&self) -> &'static str {
        "needs_approval"
    }
}

/// A chain's gate (a pre hook's `Ask`, [`NeedsApproval`]): the call of
/// `cx` with `args` as they are now passes [`gate`] with the context's
/// approver; `view` is what the rest of the chain knows of the tool. An
/// approval with edited arguments replaces `args` with them.
pub async fn gate_call(
    cx: &ToolContext,
    args: &mut ToolArgs,
    reason: &str,
    hook: &'static str,
    view: Option<ToolView>,
) -> Result<(), ToolError> {
    args.share();
    let shown = &*args;
    let key = CallKey::at(&cx.scope().place(), cx.tool_use_id(), cx.tool(), shown);
    let approver = cx.approver().map(|a| &**a);
    let request = ApprovalRequest::new(&key, shown, reason, view);
    if let Some(edited) = gate(approver, request, hook, cx.scope()).await? {
        *args = edited;
    }
    Ok(())
}

/// The approval gate: the one path by which a call that needs approval
/// reaches an approver. Every gate goes through it, outermost first:
///
/// 1. the loop's own gate, the outermost layer of every call's chain: a
///    lifecycle `pre_tool_use` hook's [`Decision::Ask`](crate::Decision::Ask),
///    or a tool the run's approval settings name
///    (`hookwire::approval::Approvals::require`); it asks the run's
///    `Approvals` (`hookwire::approval`), outside the call's time limit;
/// 2. a pre hook's [`Decision::Ask`](crate::Decision::Ask) in the chain;
/// 3. a chain's [`NeedsApproval`].
///
/// Each asks about the call's [`CallKey`], built where it asks: the
/// arguments as they are at that gate are the ones the decision binds to.
/// The chain's gates ask the context's approver (the run's approvals,
/// which a child agent's run shares). Without an approver the call is
/// denied (fail closed). The time spent waiting for the decision is not
/// part of any run-level time limit (`tool_call_timeout`, a child's
/// timeout, an injection's): see `crate::wait`. Every decision is logged (target `hookwire::audit`,
/// `approval decision`). `Ok` lets the call go on: `Ok(Some(args))` with
/// the arguments the approver edited, which fit the tool's argument type
/// (the request's [`ToolView`]); the caller runs the call with them,
/// and nothing else. A denial, a deferral (reason [`PENDING_REASON`]), or
/// an edit that does not fit (the call never runs), is
/// [`ToolError::Denied`] naming `hook`. A sticky decision from an approver
/// is applied to this call only (see `for_this_call`); the run's
/// `Approvals` remember it themselves.
pub async fn gate(
    approver: Option<&dyn Approver>,
    request: ApprovalRequest<'_>,
    hook: &'static str,
    scope: &CallScope,
) -> Result<Option<ToolArgs>, ToolError> {
    let log = scope.call_log();
    let (agent, tool, tool_use_id) = (request.agent, request.tool, request.tool_use_id);
    let path = request.key.path_display();
    let view = request.view();
    let who = request.who_slot();
    let (decision, by) = match approver {
        Some(approver) => {
            if let Some(channel) = scope.channel() {
                let report = CallReport::ApprovalWait {
                    tool,
                    gate: hook,
                    reason: request.reason,
                };
                channel.report(scope, tool_use_id, report);
            }
            let _waiting = crate::wait::waiting();
            approver.decide_noted(request).await
        }
        None => (
            ApprovalDecision::Deny(format!(
                "approval required ({}) but no approver is configured",
                request.reason
            )),
            DecidedBy::NoApprover,
        ),
    };
    let (decision, by) = for_this_call(decision, by, tool);
    let who = who.get().cloned();
    let edited = matches!(decision, ApprovalDecision::ApproveWith(_));
    let (decision, args) = match decision {
        ApprovalDecision::ApproveWith(arguments) => match edit(view, tool, arguments) {
            Ok(args) => (ApprovalDecision::Approve, Some(args)),
            Err(refused) => (ApprovalDecision::Deny(refused), None),
        },
        decision => (decision, None),
    };
    if let Some(log) = log {
        log.approval(
            tool_use_id,
            ApprovalNote {
                gate: hook.to_owned(),
                approved: decision.approves(),
                by,
                edited,
                who: who.clone(),
            },
        );
    }
    tracing::info!(
        target: "hookwire::audit",
        agent,
        tool,
        tool_use_id,
        path,
        decision = decision.label(),
        edited,
        hook,
        by = by.as_str(),
        who = who.as_deref().unwrap_or(""),
        "approval decision"
    );
    match decision {
        ApprovalDecision::Deny(reason) => Err(ToolError::Denied {
            reason,
            hook: Some(hook.into()),
        }),
        _ => Ok(args),
    }
}

/// What `decision` does to the call asked about, which is all a gate
/// decides: approve it (as shown or edited) or deny it. The run's
/// `Approvals` have kept what a sticky or deferred decision says about
/// later calls (and answer with [`ApprovalDecision::Defer`] for a call
/// they keep waiting); any other approver keeps nothing, so its
/// [`AlwaysApprove`](ApprovalDecision::AlwaysApprove) approves this call,
/// its [`AlwaysDeny`](ApprovalDecision::AlwaysDeny) denies it, and the
/// next call is asked again. A deferred call does not run: it is denied
/// with [`PENDING_REASON`], noted [`DecidedBy::Deferred`] (the run pauses
/// if its `Approvals` keep the call waiting).
fn for_this_call(
    decision: ApprovalDecision,
    by: DecidedBy,
    tool: &str,
) -> (ApprovalDecision, DecidedBy) {
    match decision {
        ApprovalDecision::AlwaysApprove | ApprovalDecision::AlwaysApproveWhen(_) => {
            (ApprovalDecision::Approve, by)
        }
        ApprovalDecision::AlwaysDeny => (
            ApprovalDecision::Deny(format!("calls of `{tool}` are always denied")),
            by,
        ),
        ApprovalDecision::Defer => (
            ApprovalDecision::Deny(PENDING_REASON.to_owned()),
            DecidedBy::Deferred,
        ),
        decision => (decision, by),
    }
}

/// The arguments an approver edited, as the call will receive them: a JSON
/// object that deserializes into the tool's argument type (`view`), or
/// the reason the call is denied instead.
fn edit(view: Option<ToolView>, tool: &str, arguments: Value) -> Result<ToolArgs, String> {
    let refused = |why: String| {
        format!(
            "the approver's edited arguments for `{tool}` were refused, so the call did not run: {why}"
        )
    };
    let Some(view) = view else {
        return Err(refused(format!(
            "the argument type of `{tool}` is not known at this gate, so an edit cannot be checked"
        )));
    };
    if !arguments.is_object() {
        let got = crate::call::json_kind(&arguments);
        return Err(refused(format!(
            "arguments must be a JSON object, got {got}"
        )));
    }
    let args = ToolArgs::from_value(arguments).map_err(|e| refused(e.to_string()))?;
    view.check(&args, tool)
        .map_err(|e| refused(e.to_string()))?;
    Ok(args)
}
