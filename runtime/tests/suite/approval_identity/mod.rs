//! An approval is for exactly the call the approver saw, on every path a
//! tool runs: late decisions, parent and child ids, sticky decisions across
//! agents, a child's pause, waits and timeouts, forged and replayed states,
//! injections; remembered conditions, bound to the tool's schema and scoped
//! by path. Each test is one case that broke before `CallKey`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;
use crate::state_resume::{assert_refused, edit_calls};

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_common::test_agent;
use hookwire::BoxFuture;
use hookwire::agent::lifecycle::{LifecycleHooks, PreToolUse};
use hookwire::agent::{Agent, AgentTool, RunError, RunState, RunStatus, Runner, TraceEvent};
use hookwire::approval::{
    ApprovalDecision, ApprovalRequest, Approvals, Approver, DeferAll, NeedsApproval,
    PendingApproval, ResolvedApproval, Sticky,
};
use hookwire::model::{Message, ScriptedModel, ScriptedToolCall, Turn};
use hookwire::{
    Decision, Handler, Hook, Next, Outcome, Router, Tool, ToolArgs, ToolContext, ToolHandler, chain,
};
use serde_json::{Value, json};

mod conditions;
mod decisions;
mod injections;
mod names;
mod sealed;
mod states;
mod waits;

pub(super) type Ledger = Arc<Mutex<Vec<String>>>;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(super) struct Pay {
    to: String,
    amount: u64,
}

/// `pay` (or `slow_pay`, which works 1.5 s first): writes
/// `<who> paid <to> <amount>` to the ledger.
#[derive(Clone)]
pub(super) struct PayTool {
    ledger: Ledger,
    who: &'static str,
    slow: bool,
}

impl Tool for PayTool {
    type Args = Pay;

    fn name(&self) -> &str {
        if self.slow { "slow_pay" } else { "pay" }
    }

    fn description(&self) -> &str {
        "Pays."
    }

    async fn call(&self, _cx: &ToolContext, p: Pay) -> Outcome {
        if self.slow {
            tokio::time::sleep(Duration::from_millis(1500)).await;
        }
        self.ledger
            .lock()
            .unwrap()
            .push(format!("{} paid {} {}", self.who, p.to, p.amount));
        Ok(hookwire::ToolResult::text(format!("paid {}", p.to)))
    }
}

pub(super) fn pay_tool(ledger: Ledger, who: &'static str) -> PayTool {
    PayTool {
        ledger,
        who,
        slow: false,
    }
}

/// A scripted call with the model's id `id` (empty: the loop names it).
fn call(id: &str, tool: &str, arguments: Value) -> ScriptedToolCall {
    ScriptedToolCall {
        id: Some(id.to_owned()),
        name: tool.to_owned(),
        arguments,
    }
}

fn calls(list: Vec<ScriptedToolCall>) -> Turn {
    Turn {
        tool_calls: list,
        ..Turn::default()
    }
}

fn paid(ledger: &Ledger) -> Vec<String> {
    ledger.lock().unwrap().clone()
}

fn pending_of(out: &hookwire::agent::RunOutput) -> Vec<PendingApproval> {
    match &out.status {
        RunStatus::Paused { pending } => pending.clone(),
        other => panic!("expected a pause, got {other:?}"),
    }
}

/// An approver that takes `after` to answer "approve".
pub(crate) struct Slow(pub(crate) Duration);

impl Approver for Slow {
    fn decide<'a>(&'a self, _request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        Box::pin(async move {
            tokio::time::sleep(self.0).await;
            ApprovalDecision::Approve
        })
    }
}

/// Asks about every call from a lifecycle `pre_tool_use` hook.
struct AskAll;

impl LifecycleHooks for AskAll {
    async fn pre_tool_use(&self, _cx: &mut PreToolUse<'_>) -> Decision {
        Decision::Ask("a person looks at every call".into())
    }
}
