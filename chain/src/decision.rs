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
//! | [`ApprovalDecision`] | does the approver let this call run? (an [`Approver`](crate::approve::Approver), a decision given for a paused call) | approve (as shown or with edited arguments), deny |
//! | `Answer` (`hookwire::approval::Answer`) | what does the person asked say? (an `Asker`, `hookwire::approval::Asker`) | approve (as shown or edited) or deny, once or always, or later |
//!
//! Each type is also exported where it is used: [`Decision`] at the crate
//! root, [`Flow`] and [`StopDecision`] in
//! `hookwire::agent::lifecycle`, [`ApprovalDecision`] and
//! `Answer` in `hookwire::approval`.

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
/// [`Approver`](crate::approve::Approver) answers, and the decision given
/// for a paused call (`hookwire::approval::Approvals::resolve`).
///
/// As serde data (in `hookwire::approval::ApprovalState`):
/// `{"decision": "approve"}`, `{"decision": "deny", "reason": ".."}` or
/// `{"decision": "approve_with", "arguments": {..}}`.
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
}

/// [`ApprovalDecision`] as it is written.
#[derive(Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
enum DecisionData {
    Approve,
    Deny { reason: String },
    ApproveWith { arguments: serde_json::Value },
}

impl From<DecisionData> for ApprovalDecision {
    fn from(data: DecisionData) -> Self {
        match data {
            DecisionData::Approve => Self::Approve,
            DecisionData::Deny { reason } => Self::Deny(reason),
            DecisionData::ApproveWith { arguments } => Self::ApproveWith(arguments),
        }
    }
}

impl From<ApprovalDecision> for DecisionData {
    fn from(decision: ApprovalDecision) -> Self {
        match decision {
            ApprovalDecision::Approve => Self::Approve,
            ApprovalDecision::Deny(reason) => Self::Deny { reason },
            ApprovalDecision::ApproveWith(arguments) => Self::ApproveWith { arguments },
        }
    }
}

impl ApprovalDecision {
    /// Whether the call runs (approved, with or without edits).
    pub fn approves(&self) -> bool {
        !matches!(self, Self::Deny(_))
    }

    /// A short name for logs: `approved`, `approved with edits`, `rejected`.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Approve => "approved",
            Self::ApproveWith(_) => "approved with edits",
            Self::Deny(_) => "rejected",
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
}
