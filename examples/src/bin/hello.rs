//! The README's "hello agent": one tool, one hook, `#[agent]`, and a run on
//! the scripted model (offline). `cargo run -p hookwire-examples --bin hello`.

use hookwire::agent::{RunError, Runner};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{Next, Outcome, ToolArgs, ToolContext};

/// Adds one to `x`.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// Tags every result the model reads.
#[hookwire::hook]
async fn tag(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
    let mut outcome = next.run(cx, args).await;
    if let Ok(result) = &mut outcome {
        result.append_text(" [checked]");
    }
    outcome
}

/// Adds one.
#[hookwire::agent(
    name = "hello",
    instruction = "Add one.",
    function_tools = [add_one],
    tool_hooks = [tag],
)]
pub struct Hello;

#[tokio::main]
async fn main() -> Result<(), RunError> {
    // The scripted model plays these turns in order: offline, deterministic.
    let model = ScriptedModel::from_turns([
        Turn::call("add_one", hookwire::serde_json::json!({ "x": 41 })),
        Turn::text("The answer is 42."),
    ]);
    let mut session = Runner::new(Hello::new(), model);
    let out = session.run("What is 41 + 1?").await?;
    print!("{}", out.trace_text());
    Ok(())
}
