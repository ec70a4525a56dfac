//! Every signature form the runtime accepts.

use std::fmt;

use hookwire::{
    Decision, Handler, HookError, Json, Next, Outcome, ToolArgs, ToolContext, ToolError,
    ToolResult,
};

/// An error type that is `Display` but not `std::error::Error`.
#[derive(Debug)]
pub struct Oops;

impl fmt::Display for Oops {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("oops")
    }
}

impl std::error::Error for Oops {}

/// Around, with `Next<'_>`.
#[hookwire::hook]
async fn around_elided(cx: &mut ToolContext, args: ToolArgs, next: Next<'_>) -> Outcome {
    next.run(cx, args).await
}

/// Around, with an explicit handler parameter and the long return type.
#[hookwire::hook]
async fn around_generic<N: Handler>(
    cx: &mut ToolContext,
    args: ToolArgs,
    next: Next<'_, N>,
) -> Result<ToolResult, ToolError> {
    next.run(cx, args).await
}

/// Around, through full paths, calling `next` twice.
#[hookwire::hook]
async fn around_paths(
    cx: &mut hookwire::ToolContext,
    args: hookwire::ToolArgs,
    next: hookwire::Next,
) -> hookwire::Outcome {
    let first = next.run(cx, args.clone()).await;
    if first.is_err() { next.run(cx, args).await } else { first }
}

/// Pre, fallible with `HookError`.
#[hookwire::hook]
async fn pre_hook_error(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Result<Decision, HookError> {
    Ok(Decision::Continue)
}

/// Pre, fallible with a std error.
#[hookwire::hook]
async fn pre_std_error(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Result<Decision, Oops> {
    Err(Oops)
}

/// Post, fallible.
#[hookwire::hook]
async fn post_fallible(_cx: &mut ToolContext, outcome: &mut Outcome) -> Result<(), Oops> {
    if outcome.is_err() { Err(Oops) } else { Ok(()) }
}

/// Post, `-> ()` spelled out.
#[hookwire::hook]
async fn post_unit(_cx: &mut ToolContext, _outcome: &mut Outcome) -> () {}

/// A tool with the context, returning `ToolResult`.
#[hookwire::tool]
async fn with_context(cx: &ToolContext) -> ToolResult {
    ToolResult::text(cx.tool())
}

/// A tool returning a `Result` with a `Display` error.
#[hookwire::tool]
fn fallible(x: u8) -> Result<Json<u8>, Oops> {
    if x > 0 { Ok(Json(x)) } else { Err(Oops) }
}

/// A tool returning `&'static str`, with a raw identifier parameter.
#[hookwire::tool]
fn raw(r#type: String) -> &'static str {
    if r#type.is_empty() { "empty" } else { "full" }
}

/// A tool with nested and collection parameters.
#[hookwire::tool]
async fn nested(points: Vec<(i32, i32)>, tags: std::collections::BTreeMap<String, bool>) -> String {
    format!("{} {}", points.len(), tags.len())
}

/// Around, with the handler bound in a `where` clause.
#[hookwire::hook]
async fn around_where<N>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome
where
    N: Handler,
{
    next.run(cx, args).await
}

/// Around, with `impl Handler`.
#[hookwire::hook]
async fn around_impl(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, impl Handler>) -> Outcome {
    next.run(cx, args).await
}

/// A `const fn` tool returning a number.
#[hookwire::tool]
const fn double(x: i64) -> i64 {
    x * 2
}

/// A tool returning a bool in a `Result`.
#[hookwire::tool]
fn positive(x: f64) -> Result<bool, Oops> {
    if x.is_nan() { Err(Oops) } else { Ok(x > 0.0) }
}

/// A tool returning a float.
#[hookwire::tool]
async fn half(x: f32) -> f32 {
    x / 2.0
}

fn main() {
    let _ = hookwire::chain!(
        around_elided {}, around_generic {}, around_paths {}, pre_hook_error {},
        pre_std_error {}, post_fallible {}, post_unit {}, around_where {}, around_impl {}
            => hookwire::ToolHandler(with_context {})
    );
    let _ = (fallible {}, raw {}, nested {}, double {}, positive {}, half {});
}
