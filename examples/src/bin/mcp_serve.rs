//! A hookwire tool set served as an MCP server over stdio.
//!
//! Every tool runs behind its own chain of hooks, so MCP clients get the
//! same behaviour a model would: `add_one` clamps `x` to at most 10 before
//! it runs, `shout`'s result is tagged by a post hook, and
//! `delete_everything` is denied by a pre hook (the tool never runs).
//!
//! ```sh
//! cargo run -p hookwire-examples --bin mcp_serve    # speaks MCP on stdin/stdout
//! ```
//!
//! Point any MCP client at it, for example a `hookwire.yaml` entry
//! `calc: {command: target/debug/mcp_serve}`.

use hookwire::{
    CallScope, Decision, FnTool, HookError, Json, Outcome, Post, PostHook, Pre, PreHook, Router,
    Tool, ToolArgs, ToolContext, ToolSource, call::NoArgs, chain,
};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddOneArgs {
    /// The number to add one to.
    x: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ShoutArgs {
    /// What to shout.
    text: String,
}

/// Clamps `x` to at most 10.
struct Clamp;

impl PreHook for Clamp {
    async fn before(
        &self,
        _cx: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        if args
            .get("x")
            .and_then(|v| v.as_i64())
            .is_some_and(|x| x > 10)
        {
            args.insert("x", 10.into())?;
        }
        Ok(Decision::Continue)
    }
}

/// Denies every call of the tool it guards.
struct Forbid;

impl PreHook for Forbid {
    async fn before(
        &self,
        cx: &mut ToolContext,
        _args: &mut ToolArgs,
    ) -> Result<Decision, HookError> {
        Ok(Decision::Deny(format!(
            "`{}` is not allowed here",
            cx.tool()
        )))
    }
}

/// Tags successful results with ` [audited]`.
struct Tag;

impl PostHook for Tag {
    async fn after(&self, _cx: &mut ToolContext, outcome: &mut Outcome) -> Result<(), HookError> {
        if let Ok(result) = outcome {
            result.append_text(" [audited]");
        }
        Ok(())
    }
}

#[tokio::main]
async fn main() {
    let add_one = FnTool::new("add_one", "Adds one to x.", |a: AddOneArgs| async move {
        Json(a.x + 1)
    });
    let shout = FnTool::new(
        "shout",
        "Upper-cases the text.",
        |a: ShoutArgs| async move { a.text.to_uppercase() },
    );
    let delete = FnTool::new(
        "delete_everything",
        "Deletes everything.",
        |_: NoArgs| async move { "deleted everything" },
    );
    let tools = Router::new()
        .route(
            add_one.definition(),
            ToolSource::Function,
            chain!(Pre(Clamp) => hookwire::ToolHandler(add_one)),
        )
        .route(
            shout.definition(),
            ToolSource::Function,
            chain!(Post(Tag) => hookwire::ToolHandler(shout)),
        )
        .route(
            delete.definition(),
            ToolSource::Function,
            chain!(Pre(Forbid) => hookwire::ToolHandler(delete)),
        );
    if let Err(e) = hookwire::mcp::serve_stdio(tools, CallScope::new("calculator")).await {
        eprintln!("mcp_serve: {e}");
        std::process::exit(1);
    }
}
