//! The PMO orchestrator declared with `#[hookwire::agent]`: the same agents,
//! tools and hook as the AgentCards in `pmo/cards/`, and the same functions
//! (the card files are included here as modules and wrapped).

use hookwire::{Next, Outcome, ToolArgs, ToolContext};

// The cards' generated code declares these files as modules too; here the
// same functions are wrapped with `#[tool]` and `#[hook]`.
#[allow(clippy::duplicate_mod)]
#[path = "../pmo/cards/hooks.rs"]
mod card_hooks;
#[allow(clippy::duplicate_mod)]
#[path = "../pmo/cards/tools.rs"]
mod card_tools;

/// Adds one to `x`.
#[hookwire::tool]
pub fn add_one(x: i64) -> hookwire::Json<i64> {
    card_tools::add_one(x)
}

/// Runs a shell command. The audit hook blocks every call, so this body
/// never runs in the example.
#[hookwire::tool]
pub fn shell(command: String) -> Result<String, String> {
    card_tools::shell(command)
}

/// Audits every tool call: clamps `add_one`'s `x` to at most 10 before the
/// call, blocks the shell tool instead of running it, and appends `[audit]`
/// to every result after the call.
#[hookwire::hook]
pub async fn audit_hook(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    card_hooks::audit_hook(cx, args, next).await
}

/// The New York project manager.
#[hookwire::agent(
    name = "NY-Project-Manager",
    description = "Reports on New York projects.",
    instruction = "You are the New York project manager. Answer with a one-line status of the project you are asked about."
)]
#[derive(Debug)]
pub struct NyProjectManager;

/// The London project manager.
#[hookwire::agent(
    name = "London-Project-Manager",
    description = "Reports on London projects and the economics review.",
    instruction = "You are the London project manager. Answer with a one-line status of what you are asked about."
)]
#[derive(Debug)]
pub struct LondonProjectManager;

/// The PMO orchestrator.
#[hookwire::agent(
    name = "PMO-orchestrator",
    default = true,
    servers = ["time"],
    tools(time = ["get_current_time"]),
    function_tools = [add_one, shell],
    agents = [
        NyProjectManager(name = "NY-Project-Manager"),
        LondonProjectManager(name = "London-Project-Manager")
    ],
    tool_hooks = [audit_hook],
    history_source = "none",
    history_merge_target = "none",
    max_parallel = 128,
    child_timeout_sec = 120,
    max_display_instances = 20,
    instruction = "Get project updates from the New York and London project managers and include the current time. Ask NY-Project-Manager three times about different projects: Anthropic, evalstate/fast-agent, and OpenAI, and London-Project-Manager for economics review. Return a brief, concise combined summary with clear city/time/topic labels."
)]
#[derive(Debug)]
pub struct PmoOrchestrator;
