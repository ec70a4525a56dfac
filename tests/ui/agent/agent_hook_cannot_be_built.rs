use hookwire::{Handler, Hook, Next, Outcome, ToolArgs, ToolContext};

/// Adds one.
#[hookwire::tool]
fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// A hook with a field, but neither `Default` nor `#[derive(FromDeps)]`:
/// the agent cannot build it.
struct RateLimit {
    per_minute: u32,
}

impl Hook for RateLimit {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        let _ = self.per_minute;
        next.run(cx, args).await
    }
}

#[hookwire::agent(name = "calc", function_tools = [add_one], tool_hooks = [RateLimit])]
struct Calc;

fn main() {
    let _ = hookwire::agent::Runner::new(
        Calc::new(),
        hookwire::model::ScriptedModel::from_turns([]),
    );
}
