//! Remembered conditions: "always approve `refund` when `amount <= 50`".
//!
//! A condition is Rust code over the tool's typed arguments, registered
//! with the run's [`Approvals`] under a name ([`ApprovalCondition`]); a
//! decision remembers it by that name with its parameters
//! ([`ApproveWhen`], kept as a [`RememberedCondition`] of the
//! [`ApprovalState`](super::ApprovalState)), so that the state stays plain
//! data. A remembered condition is bound to the digest of the tool's input
//! schema, and lapses ([`LapsedCondition`]) when a run offers the tool with
//! another schema.

use std::borrow::Cow;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Approvals, ApproveWhen};
use crate::ToolArgs;
use crate::scope::CallScope;
use hookwire_chain::approve::identity::digest_schema;
use hookwire_chain::tool::ToolDefinition;

/// What a condition answers for a call's arguments and its parameters.
type Holds = dyn Fn(&ToolArgs, &Value) -> bool + Send + Sync;

/// A named condition over one tool's typed arguments, with typed
/// parameters: what a remembered approval ("always approve `refund` when
/// `amount <= 50`") names. Register it with the run's approvals
/// ([`Approvals::with_condition`]); a person's
/// [`ApprovalDecision::AlwaysApproveWhen`](super::ApprovalDecision::AlwaysApproveWhen),
/// [`Approvals::approve_when`] or a decision given for a paused call then
/// remembers it by name, with its parameters, for the tool.
///
/// The arguments are read as `A` (the tool's own argument type,
/// [`ArgsOf<tool>`](crate::declare::ArgsOf), or any `Deserialize` type that
/// reads an MCP tool's arguments) and the parameters as `P`. Arguments or
/// parameters that do not deserialize meet no condition: the call is asked
/// about.
///
/// ```
/// use hookwire::approval::{ApprovalCondition, Approvals, DeferAll};
/// use hookwire::declare::ArgsOf;
///
/// /// Refunds a customer.
/// #[hookwire::tool]
/// fn refund(customer: String, amount: u64) -> String { format!("refunded {amount} to {customer}") }
///
/// let at_most = ApprovalCondition::new("refund", "at_most", |args: &ArgsOf<refund>, limit: &u64| {
///     args.amount <= *limit
/// });
/// let approvals = Approvals::new(DeferAll).with_condition(at_most);
/// approvals.approve_when("refund", "at_most", 50).unwrap();
/// // A parameter that is not a `u64` is refused when it is remembered.
/// assert!(approvals.approve_when("refund", "at_most", "fifty").is_err());
/// ```
#[derive(Clone)]
pub struct ApprovalCondition {
    tool: Cow<'static, str>,
    name: Cow<'static, str>,
    holds: Arc<Holds>,
    params: fn(&Value) -> Result<(), String>,
}

impl std::fmt::Debug for ApprovalCondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalCondition")
            .field("tool", &self.tool)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ApprovalCondition {
    /// The condition `name` of the tool `tool` (its name as the agent
    /// offers it: `refund`, an MCP tool's `server__tool`; a child agent's
    /// tool of that name too): `holds(args, params)`.
    pub fn new<A, P, F>(
        tool: impl Into<Cow<'static, str>>,
        name: impl Into<Cow<'static, str>>,
        holds: F,
    ) -> Self
    where
        A: DeserializeOwned + 'static,
        P: DeserializeOwned + 'static,
        F: Fn(&A, &P) -> bool + Send + Sync + 'static,
    {
        let tool = tool.into();
        let name = name.into();
        let parse_as = tool.clone();
        Self {
            holds: Arc::new(move |args: &ToolArgs, params: &Value| {
                let Ok(params) = P::deserialize(params) else {
                    return false;
                };
                // A condition that panics is not met: the call is asked about.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    args.parse::<A>(&parse_as)
                        .is_ok_and(|args| holds(&args, &params))
                }))
                .unwrap_or(false)
            }),
            params: |params| P::deserialize(params).map(drop).map_err(|e| e.to_string()),
            tool,
            name,
        }
    }

    /// The tool it is for.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether a call with `args` meets it with `params`.
    pub fn holds(&self, args: &ToolArgs, params: &Value) -> bool {
        (self.holds)(args, params)
    }
}

/// A condition remembered for a tool: calls whose arguments meet it are
/// approved without asking, as long as the tool's schema is the one it
/// was remembered with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RememberedCondition {
    /// The condition's name, as registered for the tool.
    pub condition: String,
    /// Its parameters.
    #[serde(default)]
    pub params: Value,
    /// The digest (SHA-256, hex) of the tool's input schema it was
    /// remembered with; `None` when remembered before any run offered the
    /// tool ([`Approvals::approve_when`] before a run), bound when the
    /// next run starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
}

/// A remembered condition that no longer applies: the tool's input
/// schema is not the one it was remembered with (a state exported under
/// one version of the tool and resumed under another). The tool's calls
/// are asked about again; the approver asked next about the tool is shown
/// the note ([`ApprovalRequest::note`](super::ApprovalRequest::note)),
/// and the run's trace has it
/// ([`TraceEvent::ApprovalLapsed`](crate::agent::TraceEvent::ApprovalLapsed)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LapsedCondition {
    /// The tool, by scoped name (`refund`, `ny/refund`).
    pub tool: String,
    /// The condition that lapsed.
    pub condition: RememberedCondition,
    /// What happened, for a person.
    pub note: String,
}

/// Why a condition was not remembered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConditionError {
    /// No condition of this name is registered for the tool.
    #[error(
        "no approval condition `{condition}` is registered for tool `{tool}` (registered: \
         {known}); register it with `Approvals::with_condition`"
    )]
    Unknown {
        /// The tool, by scoped name.
        tool: String,
        /// The condition asked for.
        condition: String,
        /// The conditions registered for the tool.
        known: String,
    },
    /// The parameters do not fit the condition's parameter type.
    #[error("the parameters of approval condition `{condition}` for `{tool}` do not fit: {error}")]
    Params {
        /// The tool, by scoped name.
        tool: String,
        /// The condition.
        condition: String,
        /// What is wrong.
        error: String,
    },
}

/// The unscoped name of a scoped tool (`ny/refund` is `refund`).
fn base_name(scoped: &str) -> &str {
    scoped.rsplit('/').next().unwrap_or(scoped)
}

impl Approvals {
    /// Registers a condition that remembered decisions may name (see
    /// [`ApprovalCondition`]); one of the same tool and name is replaced.
    /// Clones and the agents a run calls share it.
    pub fn with_condition(self, condition: ApprovalCondition) -> Self {
        {
            let mut known = crate::lock(&self.core().conditions);
            known.retain(|c| c.tool != condition.tool || c.name != condition.name);
            known.push(condition);
        }
        self
    }

    /// These approvals with the conditions `other` has registered too: to
    /// replace a runner's approvals with others
    /// ([`Runner::with_approvals`](crate::agent::Runner::with_approvals))
    /// that keep its conditions.
    pub fn with_conditions_of(self, other: &Approvals) -> Self {
        let known = crate::lock(&other.core().conditions).clone();
        crate::lock(&self.core().conditions).extend(known);
        self
    }

    /// Remembers "always approve `tool` when `condition` holds with
    /// `params`", by scoped name as [`set_sticky`](Self::set_sticky)
    /// (`ny/refund` for the child agent `ny`'s tool). Refused when no such
    /// condition is registered for the tool, or `params` do not fit it.
    /// It is bound to the tool's schema when the next run starts.
    pub fn approve_when(
        &self,
        tool: impl Into<String>,
        condition: &str,
        params: impl Serialize,
    ) -> Result<(), ConditionError> {
        let tool = tool.into();
        let when = ApproveWhen::new(condition, params);
        let remembered = self.checked(&tool, when)?;
        self.lock().remember(tool, remembered);
        self.names_given();
        Ok(())
    }

    /// The conditions that lapsed and were not yet shown to an approver.
    pub fn lapsed(&self) -> Vec<LapsedCondition> {
        self.lock().lapsed.clone()
    }

    /// `when` for the scoped tool `tool`, checked against the registered
    /// conditions, bound to the tool's schema if a run has offered it.
    pub(super) fn checked(
        &self,
        tool: &str,
        when: ApproveWhen,
    ) -> Result<RememberedCondition, ConditionError> {
        self.core().checked(tool, when)
    }

    /// At the start of a run of `scope` offering `definitions`: binds the
    /// remembered conditions of its tools to their schemas, and drops
    /// those remembered with another schema, returning them. Reads one
    /// lock when no condition is registered or remembered.
    pub(crate) fn bind_schemas(
        &self,
        scope: &CallScope,
        definitions: &[ToolDefinition],
    ) -> Vec<LapsedCondition> {
        let core = self.core();
        if crate::lock(&core.conditions).is_empty() && self.lock().conditions.is_empty() {
            return Vec::new();
        }
        let mut lapsed = Vec::new();
        for definition in definitions {
            let scoped = scope.scoped_tool(&definition.name);
            let digest = digest_schema(&definition.input_schema);
            let mut state = self.lock();
            if let Some(remembered) = state.conditions.get_mut(&scoped) {
                remembered.retain_mut(|r| match &r.schema {
                    None => {
                        r.schema = Some(digest.clone());
                        true
                    }
                    Some(was) if *was == digest => true,
                    Some(_) => {
                        lapsed.push(LapsedCondition {
                            note: lapse_note(&scoped, r),
                            tool: scoped.clone(),
                            condition: r.clone(),
                        });
                        false
                    }
                });
                if remembered.is_empty() {
                    state.conditions.remove(&scoped);
                }
            }
            drop(state);
            crate::lock(&core.schemas).insert(scoped, digest);
        }
        if !lapsed.is_empty() {
            self.lock().lapsed.extend(lapsed.iter().cloned());
        }
        lapsed
    }
}

/// The note of a condition that lapsed.
fn lapse_note(tool: &str, condition: &RememberedCondition) -> String {
    format!(
        "the remembered approval `always approve `{tool}` when {}({})` lapsed: the tool's input \
         schema is not the one it was remembered with, so its calls are asked about again",
        condition.condition, condition.params
    )
}

impl super::approvals::ApprovalCore {
    /// See [`Approvals::checked`].
    pub(super) fn checked(
        &self,
        tool: &str,
        when: ApproveWhen,
    ) -> Result<RememberedCondition, ConditionError> {
        let base = base_name(tool);
        let known = crate::lock(&self.conditions);
        let Some(found) = known
            .iter()
            .find(|c| c.tool == base && c.name == when.condition)
        else {
            let names: Vec<&str> = known
                .iter()
                .filter(|c| c.tool == base)
                .map(|c| &*c.name)
                .collect();
            return Err(ConditionError::Unknown {
                tool: tool.to_owned(),
                condition: when.condition,
                known: if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                },
            });
        };
        (found.params)(&when.params).map_err(|error| ConditionError::Params {
            tool: tool.to_owned(),
            condition: when.condition.clone(),
            error,
        })?;
        Ok(RememberedCondition {
            condition: when.condition,
            params: when.params,
            schema: crate::lock(&self.schemas).get(tool).cloned(),
        })
    }

    /// The remembered condition of the scoped tool `tool` that a call
    /// with `args` meets, if any.
    pub(super) fn met(
        &self,
        remembered: &[RememberedCondition],
        tool: &str,
        args: &ToolArgs,
    ) -> Option<String> {
        let base = base_name(tool);
        let known = crate::lock(&self.conditions);
        remembered.iter().find_map(|r| {
            known
                .iter()
                .find(|c| c.tool == base && c.name == r.condition)
                .filter(|c| c.holds(args, &r.params))
                .map(|_| r.condition.clone())
        })
    }
}

impl super::ApprovalState {
    /// Remembers `condition` for the scoped tool `tool` (one of the same
    /// name is replaced: "at most 100" after "at most 50" is at most 100).
    pub(super) fn remember(&mut self, tool: String, condition: RememberedCondition) {
        let kept = self.conditions.entry(tool).or_default();
        kept.retain(|r| r.condition != condition.condition);
        kept.push(condition);
    }
}
