//! How an imported state is checked: its version and agent, that every
//! tool it names exists, that its paused step is the model's recorded
//! answer, and that its approvals name waiting calls (once, unspent).

use std::collections::BTreeMap;

use super::{RunState, StateError};
use crate::agent::as_tool::agent_tool_name;
use crate::agent::decl::Agent;
use crate::approval::{Approvals, CallKey};
use crate::context::ToolSource;
use hookwire_chain::call::ToolCall;
use hookwire_chain::toolset::ToolSet;

use super::state::STATE_VERSION;

impl RunState {
    /// Checks the state against `agent`: its version, its agent, that
    /// every tool it names exists, and that its paused step is the model's
    /// recorded answer.
    pub(super) fn check<A: Agent>(&self, agent: &A) -> Result<(), StateError> {
        if self.version != STATE_VERSION {
            return Err(StateError::Version {
                found: self.version,
                expected: STATE_VERSION,
            });
        }
        let name = &agent.config().name;
        if self.agent != *name {
            return Err(StateError::OtherAgent {
                found: self.agent.clone(),
                expected: name.to_string(),
            });
        }
        let tools = agent.tools();
        let unknown = |what, tool: &str| StateError::UnknownTool {
            agent: name.to_string(),
            what,
            tool: tool.to_owned(),
        };
        for tool in self.children.keys() {
            if !tools.contains(tool) {
                return Err(unknown("child histories", tool));
            }
        }
        let waiting = self.waiting_calls()?;
        self.check_histories()?;
        if let Some(step) = &self.pending_step {
            for call in &step.calls {
                if !tools.contains(&call.name) {
                    return Err(unknown("paused step", &call.name));
                }
            }
        }
        for (id, child) in &self.paused_children {
            let Some(call) = waiting.get(id.as_str()) else {
                return Err(StateError::UnknownCall {
                    what: "paused children",
                    id: id.clone(),
                });
            };
            if tools.source(&call.name) != Some(ToolSource::Agent)
                || *call.name != *agent_tool_name(&child.state.agent)
            {
                return Err(StateError::Inconsistent(format!(
                    "call `{id}` of `{}` does not run agent `{}`",
                    call.name, child.state.agent
                )));
            }
        }
        let settings = &self.approvals.settings.needs_approval;
        let remembered = self.approvals.sticky.keys();
        let conditions = self.approvals.conditions.keys();
        for scoped in settings.iter().chain(remembered).chain(conditions) {
            let known = match scoped.split_once('/') {
                None => tools.contains(scoped),
                Some((child, _)) => {
                    tools.source(&agent_tool_name(child)) == Some(ToolSource::Agent)
                }
            };
            if !known {
                return Err(unknown("approval settings", scoped));
            }
        }
        Ok(())
    }

    /// The paused step's calls that wait, by id, after checking that the
    /// step is the model's recorded answer: the same calls as the answer,
    /// in the history as its last message, one result slot per call, ids
    /// unique.
    fn waiting_calls(&self) -> Result<BTreeMap<&str, &ToolCall>, StateError> {
        let mut waiting = BTreeMap::new();
        let Some(step) = &self.pending_step else {
            return Ok(waiting);
        };
        let bad = |why: String| Err(StateError::Inconsistent(why));
        if step.results.len() != step.calls.len() {
            return bad(format!(
                "{} call(s) but {} result slot(s)",
                step.calls.len(),
                step.results.len()
            ));
        }
        if step.calls != step.response.tool_calls {
            return bad("its calls are not the ones of the model's recorded answer".into());
        }
        let answer = step.response.to_message();
        if self.history.last() != Some(&answer) {
            return bad(
                "the history does not end with the model's answer that made its calls".into(),
            );
        }
        if step.step.checked_add(1) != Some(self.steps) {
            return bad(format!(
                "it is step {} but the run made {} model request(s)",
                step.step, self.steps
            ));
        }
        let mut ids = std::collections::HashSet::new();
        for (call, result) in step.calls.iter().zip(&step.results) {
            if call.id.is_empty() || !ids.insert(&*call.id) {
                return bad(format!("call id `{}` is empty or used twice", call.id));
            }
            if result.is_none() {
                waiting.insert(&*call.id, call);
            }
        }
        Ok(waiting)
    }

    /// Checks that `key` names a waiting call of this state (or of a paused
    /// child's, down its path), with the tool that call has.
    fn check_key(
        &self,
        what: &'static str,
        session: &str,
        key: &CallKey,
    ) -> Result<(), StateError> {
        let mismatch = |why: String| StateError::ApprovalMismatch {
            what,
            path: key.path_display(),
            why,
        };
        if key.session != session {
            return Err(mismatch(format!(
                "it is for session `{}`, not `{session}`",
                key.session
            )));
        }
        let mut state = self;
        let sites = key.path.iter().map(|s| (&s.agent, s.step, &s.id));
        let last = std::iter::once((&key.agent, key.step, &key.id));
        let levels = key.path.len();
        for (depth, (agent, step, id)) in sites.chain(last).enumerate() {
            let paused_step = state.pending_step.as_ref().map(|p| p.step);
            if *agent != state.agent || paused_step != Some(step) {
                return Err(mismatch(format!(
                    "agent `{}` is not paused at step {step}",
                    agent
                )));
            }
            let waiting = state.waiting_calls()?;
            let Some(call) = waiting.get(id.as_str()) else {
                return Err(StateError::UnknownCall {
                    what,
                    id: id.clone(),
                });
            };
            if depth == levels {
                if *call.name != *key.tool {
                    return Err(mismatch(format!(
                        "call `{id}` is of `{}`, not `{}`",
                        call.name, key.tool
                    )));
                }
                return Ok(());
            }
            state = match state.paused_children.get(id.as_str()) {
                Some(child) => &child.state,
                None => {
                    return Err(mismatch(format!("call `{id}` has no paused child run")));
                }
            };
        }
        Ok(())
    }

    /// Checks the approvals: each pending call and each decision names a
    /// waiting call, with the arguments it shows, once.
    pub(super) fn check_approvals(&self, approvals: &Approvals) -> Result<(), StateError> {
        let session = self.correlation_id.as_str();
        let mut seen = std::collections::HashSet::new();
        let calls = self
            .approvals
            .pending
            .iter()
            .map(|p| ("pending approvals", p))
            .chain(
                self.approvals
                    .resolved
                    .iter()
                    .map(|r| ("approval decisions", &r.call)),
            );
        if let Some(odd) = self
            .approvals
            .resolved
            .iter()
            .find(|r| !r.decision.is_for_this_call())
        {
            return Err(StateError::ApprovalMismatch {
                what: "approval decisions",
                path: odd.call.path(),
                why: format!(
                    "its decision `{}` is not one for this call (`approve`, `deny` or \
                     `approve_with`; a sticky decision is kept in `sticky`)",
                    odd.decision.as_str()
                ),
            });
        }
        for (what, call) in calls {
            self.check_key(what, session, &call.key)?;
            if !call.is_consistent() {
                return Err(StateError::ApprovalMismatch {
                    what,
                    path: call.path(),
                    why: "the arguments shown are not the ones its key names".into(),
                });
            }
            let id = call.id();
            if !seen.insert(id.clone()) {
                return Err(StateError::Inconsistent(format!(
                    "call `{}` is waiting or decided twice",
                    call.path()
                )));
            }
            if approvals.is_spent(&id) {
                return Err(StateError::Replayed { path: call.path() });
            }
        }
        Ok(())
    }
}
