//! The small tool and do-nothing hooks that both the chain benchmark
//! (`runtime/benches/chain.rs`) and the zero-allocation test
//! (`runtime/tests/alloc.rs`) build their chains from, so the test proves
//! the property for the very chains the benchmark measures. Included by
//! path (`#[path = ...] mod chain_fixtures;`).

use std::hint::black_box;

use hookwire::{
    Decision, Handler, Hook, HookError, IntoOutcome, Json, Next, Outcome, PostHook, PreHook, Tool,
    ToolArgs, ToolContext,
};

/// The arguments of [`AddOne`].
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct AddOneArgs {
    /// The number.
    pub x: i64,
}

/// The function every case ends in.
pub async fn add_one(args: AddOneArgs) -> i64 {
    args.x.wrapping_add(1)
}

/// `add_one` as a tool, written as `#[hookwire::tool]` would generate it;
/// it allocates (its result is JSON text).
pub struct AddOne;

impl Tool for AddOne {
    type Args = AddOneArgs;

    fn name(&self) -> &str {
        "add_one"
    }

    fn description(&self) -> &str {
        "Adds one."
    }

    async fn call(&self, _cx: &ToolContext, args: AddOneArgs) -> Outcome {
        Json(add_one(args).await).into_outcome(self.name())
    }
}

/// Does nothing but call `next`.
pub struct Noop;

impl Hook for Noop {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        next.run(cx, args).await
    }
}

/// A pre hook that lets every call through without reading its arguments.
pub struct Allow;

impl PreHook for Allow {
    async fn before(
        &self,
        _cx: &mut ToolContext,
        _args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        Ok(Decision::Continue)
    }
}

/// A post hook that looks at the outcome and keeps it.
pub struct Keep;

impl PostHook for Keep {
    async fn after(&self, _cx: &mut ToolContext, outcome: &mut Outcome) -> Result<(), HookError> {
        black_box(outcome.is_ok());
        Ok(())
    }
}
