//! Lifecycle hooks: every event fires in order; blocking, rewriting and the
//! stop-hook loop guard; decisions across several hooks.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::agent_common;

use std::sync::{Arc, Mutex};

use agent_common::{TestAgent, test_agent};
use hookwire::agent::lifecycle::{
    AgentFailed, ExecutionEnd, ExecutionStart, Flow, ForTools, LifecycleHooks, PostToolUse,
    PreToolUse, PromptSubmit, StepEnd, StepStart, StopDecision, StopEvent,
};
use hookwire::agent::{RunStatus, Runner, TraceEvent};
use hookwire::approval::{ApprovalDecision, Approvals, FnApprover};
use hookwire::model::{Message, ScriptedModel, Turn};
use hookwire::{Decision, FnTool, Json, Router, ToolResult};
use serde_json::json;

mod decisions;
mod events;
mod matchers;
mod panics;
mod state;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

type Log = Arc<Mutex<Vec<String>>>;

fn calc(ran: Log) -> TestAgent<impl hookwire::ToolSet> {
    adder("add", ran)
}

/// An agent with one tool, `name`, that adds and records its calls.
fn adder(name: &'static str, ran: Log) -> TestAgent<impl hookwire::ToolSet> {
    test_agent(
        "calc",
        Router::new().tool(FnTool::new(name, "Adds.", move |x: Add| {
            let ran = ran.clone();
            async move {
                ran.lock().unwrap().push(format!("{name}({},{})", x.a, x.b));
                Json(x.a + x.b)
            }
        })),
    )
}

/// Records every event.
struct Recorder(Log);

impl Recorder {
    fn log(&self, s: String) {
        self.0.lock().unwrap().push(s);
    }
}

impl LifecycleHooks for Recorder {
    async fn execution_start(&self, cx: &mut ExecutionStart<'_>) -> Flow {
        self.log(format!("execution_start({})", cx.history.len()));
        Flow::Continue
    }
    async fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> Flow {
        self.log(format!("user_prompt_submit({})", cx.prompt));
        Flow::Continue
    }
    async fn step_start(&self, cx: &mut StepStart<'_>) -> Flow {
        self.log(format!("step_start({})", cx.step));
        Flow::Continue
    }
    async fn step_end(&self, cx: &mut StepEnd<'_>) {
        self.log(format!("step_end({},{})", cx.step, cx.tool_results.len()));
    }
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        self.log(format!("pre_tool_use({})", cx.tool));
        Decision::Continue
    }
    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        self.log(format!("post_tool_use({})", cx.call.name));
    }
    async fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) {
        self.log(format!("post_tool_failure({})", cx.call.name));
    }
    async fn stop(&self, cx: &mut StopEvent<'_>) -> StopDecision {
        self.log(format!("stop({})", cx.answer));
        StopDecision::Allow
    }
    async fn agent_failed(&self, cx: &AgentFailed<'_>) {
        self.log(format!("agent_failed({})", cx.error));
    }
    async fn execution_end(&self, cx: &ExecutionEnd<'_>) {
        self.log(format!("execution_end({})", cx.status));
    }
}

/// A hook that returns a fixed decision and logs that it ran.
struct Fixed(&'static str, Decision, Log);

impl LifecycleHooks for Fixed {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        self.2.lock().unwrap().push(self.0.to_owned());
        // Each hook appends its name to `trail`, so the order of rewrites shows.
        let mut trail = cx
            .args
            .get("trail")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_owned();
        trail.push_str(self.0);
        let _ = cx.args.insert("trail", json!(trail));
        self.1.clone()
    }
    fn name(&self) -> &'static str {
        self.0
    }
}
