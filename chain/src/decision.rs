//! The decision vocabulary: every answer a hook, an approver or a person
//! gives the loop, in one place.
//!
//! The words mean the same everywhere: *continue* goes on, *stop* ends the
//! run, *deny* refuses one call with a reason the model reads, *ask* hands
//! the call to the approver, *approve* lets it run. A type exists for each
//! question only where the set of possible answers differs, so that an
//! answer that makes no sense for a question cannot be given:
//!
//! | type | the question | answers |
//! |---|---|---|
//! | [`Decision`] | may this tool call run? (pre hooks, `pre_tool_use`) | continue, deny, ask, stop |
//! | [`Flow`] | may the run go on? (`execution_start`, `user_prompt_submit`, `step_start`) | continue, stop |
//! | [`StopDecision`] | may the run end with this final answer? (`stop`) | allow, continue with a message |
//! | [`ApprovalDecision`] | does the approver (a person, a policy) let this call run? (an [`Approver`](crate::approve::Approver), a decision given for a paused call) | approve (as shown or with edited arguments) or deny, once or always, or later |
//!
//! Each type is also exported where it is used: [`Decision`] at the crate
//! root, [`Flow`] and [`StopDecision`] in
//! `hookwire::agent::lifecycle`, [`ApprovalDecision`] in
//! `hookwire::approval`.

use serde::{Deserialize, Serialize};

/// What a pre hook, or a lifecycle `pre_tool_use` hook, decides about one
/// tool call.
///
/// The widest question: only here can a hook hand the call to the
/// approver ([`Ask`](Self::Ask)) or refuse just this call
/// ([`Deny`](Self::Deny)), since only here is there a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Go on, with the arguments as the hook left them (it may have
    /// rewritten them; inner hooks see the rewrite).
    Continue,
    /// Do not run the tool; the reason goes back to the model as an error
    /// result.
    Deny(String),
    /// Ask the approver; without one, the call is denied (fail closed).
    Ask(String),
    /// Do not run the tool, and end the run.
    Stop(String),
}

impl Decision {
    /// A short name for traces.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Continue => "continue",
            Self::Deny(_) => "deny",
            Self::Ask(_) => "ask",
            Self::Stop(_) => "stop",
        }
    }
}

/// Whether the run goes on after an event that can block.
///
/// [`Decision`] without a call: at the start of a run, of a prompt or of a
/// step there is no call to deny or to ask about, so the only answers are
/// to go on or to end the run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Flow {
    /// Go on.
    #[default]
    Continue,
    /// End the run with this reason.
    Stop(String),
}

/// What a `stop` hook (`hookwire::agent::lifecycle::LifecycleHooks::stop`)
/// decides about a final answer.
///
/// The question is the other way round from [`Flow`]'s: the run is about
/// to end, and the hook may keep it going, with the message the model
/// reads next.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum StopDecision {
    /// Let the run end.
    #[default]
    Allow,
    /// Do not end yet: add this text as a user message and ask the model
    /// again. The loop guard caps how often this may happen in one run.
    Continue(String),
}

/// Whether a call that needs approval may run: what an
/// [`Approver`](crate::approve::Approver) answers (a person at a prompt, a
/// policy), and the decision given for a paused call
/// (`hookwire::approval::Approvals::resolve`).
///
/// One call is asked about; the answer may also say how long it holds.
/// What the answers that say so mean depends on who reads them:
///
/// | answer | read by the run's `Approvals` (`hookwire::approval::Approvals`) | read by a chain's gate from an approver with no memory (an [`FnApprover`](crate::approve::FnApprover) given to a context) |
/// |---|---|---|
/// | [`Approve`](Self::Approve), [`Deny`](Self::Deny), [`ApproveWith`](Self::ApproveWith) | this call | this call |
/// | [`AlwaysApprove`](Self::AlwaysApprove) | this call runs, and every later call of the tool is approved without asking (a sticky decision) | this call runs; the next one is asked again |
/// | [`AlwaysDeny`](Self::AlwaysDeny) | this call is denied, and every later call of the tool too (a sticky decision) | this call is denied; the next one is asked again |
/// | [`AlwaysApproveWhen`](Self::AlwaysApproveWhen) | this call runs, and every later call of the tool whose arguments meet the named condition is approved without asking (a remembered condition, bound to the tool's schema) | this call runs; the next one is asked again |
/// | [`Defer`](Self::Defer) | the call waits (pending), the run pauses, and a decision given later applies to this call only | the call does not run (denied as pending: nothing remembers it) |
///
/// As serde data (a paused call's decision in
/// `hookwire::approval::ApprovalState`, a durable session's `approve`
/// request): `{"decision": "approve"}`, `{"decision": "deny", "reason":
/// ".."}` (without a `reason`, "denied by a person"), `{"decision":
/// "approve_with", "arguments": {..}}`, `{"decision": "always_approve"}`,
/// `{"decision": "always_deny"}`, `{"decision": "always_approve_when",
/// "condition": "at_most", "params": 50}` or `{"decision": "defer"}`; any other
/// `decision` is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "DecisionData", into = "DecisionData")]
#[non_exhaustive]
pub enum ApprovalDecision {
    /// Run the call.
    Approve,
    /// Do not run it; the reason goes to the model.
    Deny(String),
    /// Run the call with these arguments instead of the ones shown (an
    /// edit by the person who approved it). They must deserialize into the
    /// tool's argument type, or the call is denied and never runs; the
    /// trace's approval note says they were edited. The decision is for
    /// the call shown (its [`CallKey`](crate::approve::CallKey)) and
    /// runs exactly the edited call.
    ApproveWith(serde_json::Value),
    /// Run this call, and every later call of this tool without asking
    /// (where decisions are remembered: see the table above).
    AlwaysApprove,
    /// Deny this call, and every later call of this tool without asking
    /// (where decisions are remembered: see the table above).
    AlwaysDeny,
    /// Decide later: the call waits for a decision and the run pauses
    /// (where decisions are remembered; elsewhere the call does not run).
    Defer,
    /// Run this call, and every later call of this tool whose arguments
    /// meet the condition without asking (where decisions are remembered:
    /// see the table above; elsewhere it approves this call only). The
    /// condition is a named one the run's approvals know
    /// (`hookwire::approval::ApprovalCondition`), with its parameters.
    AlwaysApproveWhen(ApproveWhen),
}

/// A remembered condition, as a decision names it: the name of a condition
/// registered with the run's approvals
/// (`hookwire::approval::ApprovalCondition`) and its parameters, plain
/// data so that it can be kept in an exported state.
///
/// ```
/// # use hookwire::approval::{ApprovalDecision, ApproveWhen};
/// let decision = ApprovalDecision::AlwaysApproveWhen(ApproveWhen::new("at_most", 50));
/// let written = serde_json::to_value(&decision).unwrap();
/// assert_eq!(
///     written,
///     serde_json::json!({"decision": "always_approve_when", "condition": "at_most", "params": 50})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApproveWhen {
    /// The condition's name, as it was registered for the tool.
    pub condition: String,
    /// Its parameters (`null` when it takes none).
    #[serde(default)]
    pub params: serde_json::Value,
}

impl ApproveWhen {
    /// The condition `condition` with `params` (anything that serializes
    /// to JSON; a value that does not is kept as `null`, which a condition
    /// with parameters refuses).
    pub fn new(condition: impl Into<String>, params: impl Serialize) -> Self {
        Self {
            condition: condition.into(),
            params: serde_json::to_value(params).unwrap_or(serde_json::Value::Null),
        }
    }
}

/// The reason of a denial written without one (`{"decision": "deny"}`).
fn denied_by_a_person() -> String {
    "denied by a person".to_owned()
}

/// [`ApprovalDecision`] as it is written.
#[derive(Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
enum DecisionData {
    Approve,
    Deny {
        #[serde(default = "denied_by_a_person")]
        reason: String,
    },
    ApproveWith {
        arguments: serde_json::Value,
    },
    AlwaysApprove,
    AlwaysDeny,
    Defer,
    AlwaysApproveWhen {
        condition: String,
        #[serde(default)]
        params: serde_json::Value,
    },
}

impl From<DecisionData> for ApprovalDecision {
    fn from(data: DecisionData) -> Self {
        match data {
            DecisionData::Approve => Self::Approve,
            DecisionData::Deny { reason } => Self::Deny(reason),
            DecisionData::ApproveWith { arguments } => Self::ApproveWith(arguments),
            DecisionData::AlwaysApprove => Self::AlwaysApprove,
            DecisionData::AlwaysDeny => Self::AlwaysDeny,
            DecisionData::Defer => Self::Defer,
            DecisionData::AlwaysApproveWhen { condition, params } => {
                Self::AlwaysApproveWhen(ApproveWhen { condition, params })
            }
        }
    }
}

impl From<ApprovalDecision> for DecisionData {
    fn from(decision: ApprovalDecision) -> Self {
        match decision {
            ApprovalDecision::Approve => Self::Approve,
            ApprovalDecision::Deny(reason) => Self::Deny { reason },
            ApprovalDecision::ApproveWith(arguments) => Self::ApproveWith { arguments },
            ApprovalDecision::AlwaysApprove => Self::AlwaysApprove,
            ApprovalDecision::AlwaysDeny => Self::AlwaysDeny,
            ApprovalDecision::Defer => Self::Defer,
            ApprovalDecision::AlwaysApproveWhen(when) => Self::AlwaysApproveWhen {
                condition: when.condition,
                params: when.params,
            },
        }
    }
}

impl ApprovalDecision {
    /// Whether the call asked about runs: approved (as shown, with edits,
    /// or always). A denial and a deferral do not run it.
    pub fn approves(&self) -> bool {
        matches!(
            self,
            Self::Approve | Self::ApproveWith(_) | Self::AlwaysApprove | Self::AlwaysApproveWhen(_)
        )
    }

    /// Whether the decision is for the call asked about only
    /// ([`Approve`](Self::Approve), [`Deny`](Self::Deny),
    /// [`ApproveWith`](Self::ApproveWith)): not sticky, not deferred.
    pub fn is_for_this_call(&self) -> bool {
        matches!(self, Self::Approve | Self::Deny(_) | Self::ApproveWith(_))
    }

    /// A short name for logs: `approved`, `approved with edits`,
    /// `rejected`, `always approved`, `always rejected`, `deferred`.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Approve => "approved",
            Self::ApproveWith(_) => "approved with edits",
            Self::Deny(_) => "rejected",
            Self::AlwaysApprove => "always approved",
            Self::AlwaysDeny => "always rejected",
            Self::Defer => "deferred",
            Self::AlwaysApproveWhen(_) => "always approved when a condition holds",
        }
    }

    /// The name it is written with: `approve`, `deny`, `approve_with`,
    /// `always_approve`, `always_deny`, `defer`, `always_approve_when`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Deny(_) => "deny",
            Self::ApproveWith(_) => "approve_with",
            Self::AlwaysApprove => "always_approve",
            Self::AlwaysDeny => "always_deny",
            Self::Defer => "defer",
            Self::AlwaysApproveWhen(_) => "always_approve_when",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn approval_decisions_keep_the_state_format() {
        // The format states were exported in, when a decision given for a
        // paused call had a type of its own.
        let deny = ApprovalDecision::Deny("not now".into());
        let as_json = serde_json::to_value(&deny).unwrap();
        assert_eq!(as_json, json!({"decision": "deny", "reason": "not now"}));
        assert_eq!(
            serde_json::to_value(ApprovalDecision::Approve).unwrap(),
            json!({"decision": "approve"})
        );
        for (value, expected) in [
            (json!({"decision": "approve"}), ApprovalDecision::Approve),
            (json!({"decision": "deny", "reason": "not now"}), deny),
            (
                json!({"decision": "approve_with", "arguments": {"amount": 5}}),
                ApprovalDecision::ApproveWith(json!({"amount": 5})),
            ),
        ] {
            assert_eq!(
                serde_json::from_value::<ApprovalDecision>(value).unwrap(),
                expected
            );
        }
    }

    #[test]
    fn every_decision_is_written_and_read_back_and_no_other_is_read() {
        for (value, expected) in [
            (
                json!({"decision": "always_approve"}),
                ApprovalDecision::AlwaysApprove,
            ),
            (
                json!({"decision": "always_deny"}),
                ApprovalDecision::AlwaysDeny,
            ),
            (json!({"decision": "defer"}), ApprovalDecision::Defer),
            (
                json!({"decision": "deny", "reason": "denied by a person"}),
                ApprovalDecision::Deny("denied by a person".into()),
            ),
        ] {
            assert_eq!(serde_json::to_value(&expected).unwrap(), value);
            assert_eq!(
                serde_json::from_value::<ApprovalDecision>(value).unwrap(),
                expected
            );
        }
        // A denial without a reason reads with a default one.
        assert_eq!(
            serde_json::from_value::<ApprovalDecision>(json!({"decision": "deny"})).unwrap(),
            ApprovalDecision::Deny("denied by a person".into())
        );
        // An unknown decision, or none, is an error: never an approval.
        for value in [
            json!({"decision": "maybe"}),
            json!({"decision": "Approve"}),
            json!({"id": "t1"}),
            json!("approve"),
        ] {
            assert!(serde_json::from_value::<ApprovalDecision>(value).is_err());
        }
    }

    #[test]
    fn only_approvals_approve() {
        for (decision, approves, once) in [
            (ApprovalDecision::Approve, true, true),
            (ApprovalDecision::ApproveWith(json!({})), true, true),
            (ApprovalDecision::AlwaysApprove, true, false),
            (ApprovalDecision::Deny("no".into()), false, true),
            (ApprovalDecision::AlwaysDeny, false, false),
            (ApprovalDecision::Defer, false, false),
            (
                ApprovalDecision::AlwaysApproveWhen(ApproveWhen::new("at_most", 5)),
                true,
                false,
            ),
        ] {
            assert_eq!(decision.approves(), approves, "{decision:?}");
            assert_eq!(decision.is_for_this_call(), once, "{decision:?}");
        }
    }
}
