//! The tools of the chain bench besides `add_one`: two more for the
//! end-to-end tool sets, and `add_one` on typed arguments for the chain
//! group.

use std::hint::black_box;

use hookwire::{Handler, IntoOutcome, Json, Outcome, Tool, ToolArgs, ToolContext};

use super::chain_fixtures::{AddOne, AddOneArgs};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(super) struct MulArgs {
    a: i64,
    b: i64,
}

pub(super) async fn mul(args: MulArgs) -> i64 {
    args.a.wrapping_mul(args.b)
}

/// A second tool, so that dispatch by name has something to skip.
pub(super) struct Mul;

impl Tool for Mul {
    type Args = MulArgs;

    fn name(&self) -> &str {
        "mul"
    }

    fn description(&self) -> &str {
        "Multiplies."
    }

    async fn call(&self, _cx: &ToolContext, args: MulArgs) -> Outcome {
        Json(mul(args).await).into_outcome(self.name())
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(super) struct EchoArgs {
    text: String,
}

pub(super) async fn echo(args: EchoArgs) -> String {
    args.text
}

/// A third tool.
pub(super) struct Echo;

impl Tool for Echo {
    type Args = EchoArgs;

    fn name(&self) -> &str {
        "echo"
    }

    fn description(&self) -> &str {
        "Echoes."
    }

    async fn call(&self, _cx: &ToolContext, args: EchoArgs) -> Outcome {
        Json(echo(args).await).into_outcome(self.name())
    }
}

/// The innermost handler of the `chain` group: `Tool::call` with typed
/// arguments, exactly what `direct` does. The `ToolArgs` that travelled
/// through the chain are dropped unread (no hook in that group reads them
/// either), so the difference to `direct` is the cost of the layers alone;
/// argument parsing is measured in the `e2e` group. Shaped like
/// `ToolHandler`: the arguments are dealt with in `call` and the future is
/// the tool's own.
pub(super) struct Typed(pub(super) AddOne);

impl Handler for Typed {
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        drop(args);
        self.0.call(cx, AddOneArgs { x: black_box(41) })
    }
}
