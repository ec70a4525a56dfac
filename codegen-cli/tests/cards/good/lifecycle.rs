//! Lifecycle hooks of the NY project manager card.
//!
//! Each hook appends what it sees to `crate::lifecycle_log`, which the
//! crate that compiles the generated agents provides (the end-to-end test
//! in `tests/tests/cards_e2e.rs`); that test runs the card and its
//! `#[agent]` twin over the same script and compares the two logs.

use hookwire::Decision;
use hookwire::agent::lifecycle::{
    AgentFailed, ExecutionEnd, ExecutionStart, Flow, LifecycleHooks, PostToolUse, PreToolUse,
    PromptSubmit, StepEnd, StepStart, StopDecision, StopEvent,
};

/// Records every event of the run.
#[derive(Debug, Default)]
pub struct Recorder;

impl LifecycleHooks for Recorder {
    async fn execution_start(&self, cx: &mut ExecutionStart<'_>) -> Flow {
        crate::lifecycle_log(format!("recorder: execution_start {}", cx.agent));
        Flow::Continue
    }

    async fn user_prompt_submit(&self, cx: &mut PromptSubmit<'_>) -> Flow {
        crate::lifecycle_log(format!("recorder: user_prompt_submit {}", cx.prompt));
        Flow::Continue
    }

    async fn step_start(&self, cx: &mut StepStart<'_>) -> Flow {
        crate::lifecycle_log(format!("recorder: step_start {}", cx.step));
        Flow::Continue
    }

    async fn step_end(&self, cx: &mut StepEnd<'_>) {
        crate::lifecycle_log(format!("recorder: step_end {}", cx.step));
    }

    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        crate::lifecycle_log(format!("recorder: pre_tool_use {}", cx.tool));
        Decision::Continue
    }

    async fn post_tool_use(&self, cx: &mut PostToolUse<'_>) {
        crate::lifecycle_log(format!("recorder: post_tool_use {}", cx.call.name));
    }

    async fn post_tool_failure(&self, cx: &mut PostToolUse<'_>) {
        crate::lifecycle_log(format!("recorder: post_tool_failure {}", cx.call.name));
    }

    async fn stop(&self, cx: &mut StopEvent<'_>) -> StopDecision {
        crate::lifecycle_log(format!("recorder: stop {}", cx.answer));
        StopDecision::Allow
    }

    async fn agent_failed(&self, cx: &AgentFailed<'_>) {
        crate::lifecycle_log(format!("recorder: agent_failed {}", cx.error));
    }

    async fn execution_end(&self, cx: &ExecutionEnd<'_>) {
        crate::lifecycle_log(format!("recorder: execution_end {}", cx.status));
    }
}

/// Denies every call of the tools it is matched to (the card matches it to
/// `project_status`).
#[derive(Debug, Default)]
pub struct Deny;

impl LifecycleHooks for Deny {
    async fn pre_tool_use(&self, cx: &mut PreToolUse<'_>) -> Decision {
        crate::lifecycle_log(format!("deny: pre_tool_use {}", cx.tool));
        Decision::Deny(format!("{} is not allowed here", cx.tool))
    }
}
