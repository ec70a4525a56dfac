//! The console as an approver: a call that needs approval waits in the
//! console, by its call identity, until a person decides it on the page.

use std::collections::HashMap;
use std::sync::Arc;

use hookwire::BoxFuture;
use hookwire::approval::{ApprovalDecision, ApprovalRequest, Approver, CallKey};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::runs::{Run, lock};
use crate::{DecideError, Shared};

/// The approver a run's [`Approvals`](hookwire::approval::Approvals) ask,
/// from [`Console::approver`](crate::Console::approver): each call it is
/// asked about waits in the console (its agent path, tool, the exact
/// arguments its identity binds to, the reason and the tool's approval
/// metadata) until a person decides it on the page, and the call's trace
/// names that person ([`ApprovalNote::who`](hookwire::approval::ApprovalNote::who)).
///
/// It answers through the [`Approver`] trait as every approver does: the
/// run's approvals and gates treat its answer as any other's.
#[derive(Clone)]
pub struct ConsoleApprover {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for ConsoleApprover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsoleApprover").finish_non_exhaustive()
    }
}

/// A call waiting in the console.
pub(crate) struct Waiting {
    /// The run it is shown under.
    pub(crate) run: Arc<Run>,
    /// Where the person's decision goes.
    pub(crate) reply: Reply,
}

/// Where a decision goes: the run's approver waiting in this process, or
/// the `approve` handler of a durable session.
pub(crate) enum Reply {
    /// A run of this process ([`ConsoleApprover`]).
    Local(oneshot::Sender<Given>),
    /// A durable session, through its ingress.
    #[cfg(feature = "durable")]
    Durable(crate::durable::Gate),
}

/// The calls waiting in the console, by decision id, and who decided the
/// ones decided already (for the message a late decision gets).
#[derive(Default)]
pub(crate) struct Desk {
    pub(crate) waiting: HashMap<String, Waiting>,
    pub(crate) decided: HashMap<String, String>,
}

/// A decision a person gave.
pub(crate) struct Given {
    decision: ApprovalDecision,
    who: String,
}

/// A decision as the page posts it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Posted {
    /// Who decides (required, not empty).
    pub(crate) who: String,
    /// `approve`, `deny` or `approve_with`.
    pub(crate) decision: String,
    /// Why, for a denial (the model reads it).
    #[serde(default)]
    pub(crate) reason: Option<String>,
    /// The edited arguments of `approve_with`.
    #[serde(default)]
    pub(crate) arguments: Option<Value>,
}

impl Posted {
    /// The decision it gives, or why it gives none.
    pub(crate) fn decision(self) -> Result<(String, ApprovalDecision), DecideError> {
        let who = self.who.trim().to_owned();
        if who.is_empty() {
            return Err(DecideError::NoName);
        }
        let decision = match (self.decision.as_str(), self.arguments) {
            ("approve", None) => ApprovalDecision::Approve,
            ("deny", None) => {
                let mut reason = format!("denied by {who} in the console");
                if let Some(why) = self.reason.filter(|r| !r.trim().is_empty()) {
                    reason.push_str(": ");
                    reason.push_str(why.trim());
                }
                ApprovalDecision::Deny(reason)
            }
            ("approve_with", Some(arguments)) if arguments.is_object() => {
                ApprovalDecision::ApproveWith(arguments)
            }
            ("approve_with", _) => return Err(DecideError::EditNotAnObject),
            (other, _) => return Err(DecideError::UnknownDecision(other.to_owned())),
        };
        Ok((who, decision))
    }
}

/// Takes a waiting call off the desk when its run stops waiting for it
/// (the run was dropped or cancelled) before anyone decided.
struct Withdraw {
    shared: Arc<Shared>,
    id: String,
    armed: bool,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let gone = lock(&self.shared.desk).waiting.remove(&self.id);
        if let Some(waiting) = gone {
            waiting
                .run
                .push_approval("withdrawn", &self.id, json!({"id": self.id}));
        }
    }
}

impl Approver for ConsoleApprover {
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        Box::pin(async move {
            let key = request.key;
            let id = key.id();
            let run = self.shared.run_of_session(&key.session).unwrap_or_else(|| {
                // A run the console does not watch: listed under its
                // session, so that its calls can be decided too.
                self.shared.add_run(
                    format!("session {}", key.session),
                    key.agent.clone(),
                    key.session.clone(),
                )
            });
            let shown = shown(
                key,
                request.arguments_value(),
                request.reason,
                request.metadata(),
            );
            let (reply, answer) = oneshot::channel();
            lock(&self.shared.desk).waiting.insert(
                id.clone(),
                Waiting {
                    run: run.clone(),
                    reply: Reply::Local(reply),
                },
            );
            run.push_approval("approval", &id, shown);
            let mut withdraw = Withdraw {
                shared: self.shared.clone(),
                id,
                armed: true,
            };
            let given = answer.await;
            withdraw.armed = false;
            match given {
                Ok(Given { decision, who }) => {
                    request.decided_by(who);
                    decision
                }
                // The console let go of the call without a decision: it
                // does not run.
                Err(_) => ApprovalDecision::Deny("the console was closed undecided".to_owned()),
            }
        })
    }
}

/// A waiting call as the page's card shows it (the console's `approval`
/// event): its decision id, agent path, tool, the exact arguments the
/// decision binds to, the reason and the tool's approval metadata.
pub(crate) fn shown(
    key: &CallKey,
    arguments: Value,
    reason: &str,
    metadata: Option<&Value>,
) -> Value {
    json!({
        "id": key.id(),
        "path": key.path_display(),
        "agent": key.agent,
        "tool": key.tool,
        "step": key.step,
        "call": key.id,
        "arguments": arguments,
        "reason": reason,
        "metadata": metadata,
    })
}

impl Shared {
    /// Gives `decision` by `who` for the call waiting under `id`: the one
    /// path by which the console decides (its page's POST comes here), to
    /// the run's approver in this process or to the durable session's
    /// `approve` handler.
    pub(crate) async fn decide(
        &self,
        id: &str,
        who: String,
        decision: ApprovalDecision,
    ) -> Result<(), DecideError> {
        // Taken off the desk and marked decided under one lock: a second
        // decision for the call is refused as decided, whichever comes
        // first.
        let taken = {
            let mut desk = lock(&self.desk);
            let Some(Waiting { run, reply }) = desk.waiting.remove(id) else {
                return Err(match desk.decided.get(id) {
                    Some(how) => DecideError::AlreadyDecided {
                        id: id.to_owned(),
                        how: how.clone(),
                    },
                    None => DecideError::NotWaiting(id.to_owned()),
                });
            };
            let label = said(&decision);
            match reply {
                Reply::Local(reply) => {
                    let shown = json!({"id": id, "decision": label, "who": who});
                    let how = format!("{label} by {who}");
                    if reply.send(Given { decision, who }).is_err() {
                        return Err(DecideError::NotWaiting(id.to_owned()));
                    }
                    desk.decided.insert(id.to_owned(), how);
                    Taken::Decided(run, shown)
                }
                #[cfg(feature = "durable")]
                Reply::Durable(gate) => {
                    // The session answers over the network: meanwhile the
                    // call counts as decided by this person.
                    desk.decided
                        .insert(id.to_owned(), format!("being {label} by {who}"));
                    Taken::Durable(run, gate, who, decision)
                }
            }
        };
        match taken {
            Taken::Decided(run, shown) => {
                run.push_approval("decided", id, shown);
                Ok(())
            }
            #[cfg(feature = "durable")]
            Taken::Durable(run, gate, who, decision) => {
                self.decide_durable(id, run, gate, who, decision).await
            }
        }
    }
}

/// A waiting call taken off the desk: decided (its run's approver has the
/// decision), or to be sent to its durable session.
enum Taken {
    Decided(Arc<Run>, Value),
    #[cfg(feature = "durable")]
    Durable(Arc<Run>, crate::durable::Gate, String, ApprovalDecision),
}

/// What a decision did, as the page and a refusal say it.
pub(crate) fn said(decision: &ApprovalDecision) -> &'static str {
    match decision {
        ApprovalDecision::Approve => "approved",
        ApprovalDecision::Deny(_) => "denied",
        ApprovalDecision::ApproveWith(_) => "approved with edited arguments",
        ApprovalDecision::AlwaysApprove => "always approved",
        ApprovalDecision::AlwaysDeny => "always denied",
        other => other.label(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use hookwire::agent::{AgentConfig, BasicAgent, Runner, TraceEvent};
    use hookwire::approval::{ApprovalDecision, Approvals};
    use hookwire::model::{ScriptedModel, Turn};
    use hookwire::{FnTool, Json};

    use crate::{Console, DecideError};

    #[tokio::test]
    async fn the_trace_names_who_decided_and_a_late_decision_is_refused() {
        let console = Console::new().unwrap();
        let approvals = Approvals::new(console.approver());
        approvals.require("pay");
        let pay = FnTool::new(
            "pay",
            "Pays.",
            |a: serde_json::Value| async move { Json(a) },
        );
        let agent = BasicAgent::new(AgentConfig::new("shop"), hookwire::Router::new().tool(pay));
        let model = ScriptedModel::from_turns([
            Turn::call("pay", serde_json::json!({"to": "vendor"})),
            Turn::text("done"),
        ]);
        let runner = Runner::new(agent, model).with_approvals(approvals);
        let run = console.watch("shop", runner, "pay");
        let id = loop {
            let waiting = console.shared.summaries()[0].waiting.clone();
            if let Some(id) = waiting.first() {
                break id.clone();
            }
            tokio::task::yield_now().await;
        };
        assert_eq!(
            console.decide(&id, " ", ApprovalDecision::Approve).await,
            Err(DecideError::NoName)
        );
        console
            .decide(&id, "alice", ApprovalDecision::Deny("no".into()))
            .await
            .unwrap();
        let refused = console
            .decide(&id, "bob", ApprovalDecision::Approve)
            .await
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            format!(
                "call `{id}` was decided already (denied by alice): this decision is refused, nothing changed"
            )
        );
        let output = run.finished().await.unwrap();
        let notes: Vec<String> = output
            .trace
            .iter()
            .filter_map(|e| match e {
                TraceEvent::ToolCall(call) => Some(call.approvals.iter().map(|n| n.to_string())),
                _ => None,
            })
            .flatten()
            .collect();
        assert_eq!(notes, [r#"denied at approver by "alice" (asker)"#]);
    }
}
