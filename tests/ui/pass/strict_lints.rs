//! A user crate with strict lints: the generated code adds no warning and
//! needs no dependency besides `hookwire`.
#![deny(missing_docs, unsafe_code, warnings, rust_2018_idioms, unreachable_pub)]

use hookwire::agent::AgentDecl;
use hookwire::{Decision, Json, Next, Outcome, ToolArgs, ToolContext, ToolSet};

/// Adds two numbers.
#[hookwire::tool]
pub async fn add(
    /// The first number.
    a: i64,
    /// The second number.
    b: Option<i64>,
) -> Json<i64> {
    Json(a + b.unwrap_or(0))
}

/// Says hello.
#[hookwire::tool(strict, name = "hello", description = "Greets someone by name.")]
pub fn greet(name: String) -> String {
    format!("hello {name}")
}

/// Passes every call on.
#[hookwire::hook]
pub async fn audit(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    next.run(cx, args).await
}

/// Lets every call through.
#[hookwire::hook(match = "add|hello", on_failure = "open", timeout_ms = 500)]
pub async fn gate(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
    Decision::Continue
}

/// Leaves the outcome alone.
#[hookwire::hook]
pub async fn keep(_cx: &mut ToolContext, _outcome: &mut Outcome) {}

/// The calculator.
#[hookwire::agent(
    name = "calc",
    instruction = "Add numbers.",
    function_tools = [add(hooks = [keep]), greet(name = "hello")],
    tool_hooks = [audit, gate(match = "add", on_failure = "closed", timeout_ms = 100)],
    max_parallel = 2,
)]
pub struct Calc;

fn main() {
    let names: Vec<String> = Calc.tools().definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["add", "hello"]);
}
