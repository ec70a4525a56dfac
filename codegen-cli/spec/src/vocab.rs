//! The words both front ends and the runtime use: hook kinds, failure
//! policies, lifecycle events, history settings and injection frequency.
//! Each enum has one card spelling per value (`ALL`), and its serde form is
//! that spelling, so a card, an `#[agent]` attribute and a runtime
//! configuration read the same words.

use std::fmt;
use std::str::FromStr;

/// How a hook type plugs into a chain.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum HookKind {
    /// The type implements `hookwire::Hook` (what `#[hook]` generates).
    #[default]
    Around,
    /// The type implements `hookwire::PreHook`; it is wrapped in `Pre(..)`.
    Pre,
    /// The type implements `hookwire::PostHook`; it is wrapped in `Post(..)`.
    Post,
}

impl fmt::Display for HookKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl HookKind {
    /// `around`, `pre` or `post`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Around => "around",
            Self::Pre => "pre",
            Self::Post => "post",
        }
    }
}

/// What happens when a hook fails: it returns an error, panics or exceeds
/// its timeout (applied at run time by `hookwire::Guarded`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum FailurePolicy {
    /// The default: the tool is not run (or its result is discarded) and the
    /// model reads an error result naming the hook.
    #[default]
    #[serde(alias = "closed")]
    FailClosed,
    /// The hook is skipped and the call proceeds as if it were not there.
    #[serde(alias = "open")]
    FailOpen,
}

impl FailurePolicy {
    /// Every policy with the spellings accepted for it.
    pub const SPELLINGS: [(&'static str, FailurePolicy); 4] = [
        ("fail_closed", Self::FailClosed),
        ("closed", Self::FailClosed),
        ("fail_open", Self::FailOpen),
        ("open", Self::FailOpen),
    ];

    /// `fail_closed` or `fail_open`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::FailClosed => "fail_closed",
            Self::FailOpen => "fail_open",
        }
    }
}

impl FromStr for FailurePolicy {
    type Err = UnknownValue;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::SPELLINGS
            .iter()
            .find(|(name, _)| *name == s)
            .map(|(_, p)| *p)
            .ok_or_else(|| {
                let names: Vec<&'static str> = Self::SPELLINGS.iter().map(|(n, _)| *n).collect();
                UnknownValue::new("failure policy", s, &names)
            })
    }
}

/// Which history a child agent sees when called as a tool (fast-agent's
/// `history_source`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum HistorySource {
    /// A fresh, empty history (the default).
    #[default]
    None,
    /// The child's own history from earlier calls.
    Child,
    /// The orchestrator's history.
    Orchestrator,
    /// The messages passed in the call.
    Messages,
}

/// Where a child agent's conversation is merged after a call (fast-agent's
/// `history_merge_target`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum HistoryMergeTarget {
    /// Nowhere (the default).
    #[default]
    None,
    /// Into the child's own history.
    Child,
    /// Into the orchestrator's history.
    Orchestrator,
}

/// The seams where a lifecycle or request-start hook (`hooks:`) fires.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HookEvent {
    /// Before the first model request of a user request (DIAL's seam).
    OnRequestStart,
    /// After the run produced its final answer.
    OnCompletion,
    /// The run starts.
    ExecutionStart,
    /// The run ends.
    ExecutionEnd,
    /// A user prompt is submitted.
    UserPromptSubmit,
    /// Before each model request.
    StepStart,
    /// After each model request.
    StepEnd,
    /// Before a tool call.
    PreToolUse,
    /// After a successful tool call.
    PostToolUse,
    /// After a failed tool call.
    PostToolFailure,
    /// The model wants to stop.
    Stop,
    /// The agent failed.
    AgentFailed,
}

impl HookEvent {
    /// The events a `kind: tool_call` entry (a request-start injection,
    /// `hookwire::agent::RequestHook`) can fire at: what the runtime
    /// implements for config-driven hooks.
    pub const TOOL_CALL_EVENTS: [HookEvent; 2] = [Self::OnRequestStart, Self::OnCompletion];

    /// The spellings of every event, in order.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|(s, _)| *s).collect()
    }
}

/// How often a request-start injection happens.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Frequency {
    /// A new pair every time.
    Always,
    /// Replace the newest earlier pair in place when its content is
    /// identical; append a pair whose content differs from the newest
    /// (the default).
    #[default]
    AppendIfChanged,
}

/// When a previous injection result must be fetched again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RefreshCondition {
    /// Reuse the last result until `ttl_minutes` have passed since it was
    /// fetched (the expiry is encoded in the injected call's id).
    Ttl {
        /// Minutes a result stays fresh; must be > 0.
        ttl_minutes: u64,
    },
}

/// For a vocabulary enum: `ALL` (every value with its spelling, the one a
/// card, an attribute and serde all use), `as_str`, `Spelled` (what a
/// setting of the vocabulary reads), `FromStr` (whose error lists the
/// spellings) and `Display`.
macro_rules! spellings {
    ($ty:ident, $what:literal, { $($name:literal => $variant:ident),+ $(,)? }) => {
        impl $ty {
            /// Every value, with its spelling.
            pub const ALL: [(&'static str, $ty); [$($name),+].len()] = [$(($name, Self::$variant)),+];

            /// The spelling.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name),+
                }
            }
        }

        impl crate::settings::Spelled for $ty {
            const SPELLINGS: &'static [(&'static str, Self)] = &Self::ALL;
            const TYPE_NAME: &'static str = stringify!($ty);

            fn variant(self) -> &'static str {
                match self {
                    $(Self::$variant => stringify!($variant)),+
                }
            }
        }

        impl FromStr for $ty {
            type Err = UnknownValue;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                lookup(&Self::ALL, $what, s)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

spellings!(HistorySource, "history_source", {
    "none" => None,
    "child" => Child,
    "orchestrator" => Orchestrator,
    "messages" => Messages,
});

spellings!(HistoryMergeTarget, "history_merge_target", {
    "none" => None,
    "child" => Child,
    "orchestrator" => Orchestrator,
});

spellings!(HookEvent, "event", {
    "on_request_start" => OnRequestStart,
    "on_completion" => OnCompletion,
    "execution_start" => ExecutionStart,
    "execution_end" => ExecutionEnd,
    "user_prompt_submit" => UserPromptSubmit,
    "step_start" => StepStart,
    "step_end" => StepEnd,
    "pre_tool_use" => PreToolUse,
    "post_tool_use" => PostToolUse,
    "post_tool_failure" => PostToolFailure,
    "stop" => Stop,
    "agent_failed" => AgentFailed,
});

spellings!(Frequency, "frequency", {
    "always" => Always,
    "append_if_changed" => AppendIfChanged,
});

/// A value that is not one of the allowed spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{value}` (expected one of: {})", .expected.join(", "))]
#[non_exhaustive]
pub struct UnknownValue {
    /// What was being parsed.
    pub what: &'static str,
    /// The value given.
    pub value: String,
    /// The allowed spellings.
    pub expected: Vec<&'static str>,
}

impl UnknownValue {
    fn new(what: &'static str, value: &str, expected: &[&'static str]) -> Self {
        Self {
            what,
            value: value.to_owned(),
            expected: expected.to_vec(),
        }
    }
}

fn lookup<T: Copy>(
    table: &[(&'static str, T)],
    what: &'static str,
    s: &str,
) -> Result<T, UnknownValue> {
    table
        .iter()
        .find(|(name, _)| *name == s)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            UnknownValue::new(
                what,
                s,
                &table.iter().map(|(name, _)| *name).collect::<Vec<_>>(),
            )
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The spelling of each value is its serde form too, so a card, an
    /// attribute and a runtime configuration read the same words.
    fn serde_agrees<T>(all: &[(&'static str, T)])
    where
        T: Copy + PartialEq + fmt::Debug + serde::Serialize + serde::de::DeserializeOwned,
    {
        for (name, value) in all {
            assert_eq!(serde_json::to_value(value).unwrap(), *name);
            assert_eq!(serde_json::from_value::<T>((*name).into()).unwrap(), *value);
        }
    }

    #[test]
    fn spellings_are_the_serde_forms() {
        serde_agrees(&HistorySource::ALL);
        serde_agrees(&HistoryMergeTarget::ALL);
        serde_agrees(&HookEvent::ALL);
        serde_agrees(&Frequency::ALL);
        // A failure policy has two spellings each; serde writes the first.
        for (name, policy) in FailurePolicy::SPELLINGS {
            assert_eq!(
                serde_json::from_value::<FailurePolicy>(name.into()).unwrap(),
                policy
            );
            assert_eq!(serde_json::to_value(policy).unwrap(), policy.as_str());
        }
        assert_eq!(HookEvent::Stop.to_string(), "stop");
        let error = "chlid".parse::<HistorySource>().unwrap_err();
        assert_eq!(
            error.expected,
            ["none", "child", "orchestrator", "messages"]
        );
    }

    #[test]
    fn enums_parse_their_card_spellings_and_list_the_rest() {
        assert_eq!("child".parse(), Ok(HistorySource::Child));
        assert_eq!("orchestrator".parse(), Ok(HistoryMergeTarget::Orchestrator));
        assert_eq!("open".parse(), Ok(FailurePolicy::FailOpen));
        // The error lists every spelling that is accepted, no fewer.
        let err = "fail_opne".parse::<FailurePolicy>().unwrap_err();
        assert_eq!(err.expected, ["fail_closed", "closed", "fail_open", "open"]);
        let err = "on_start".parse::<HookEvent>().unwrap_err();
        assert!(err.to_string().contains("on_request_start, on_completion"));
        for (name, event) in HookEvent::ALL {
            assert_eq!(event.as_str(), name);
        }
    }
}
