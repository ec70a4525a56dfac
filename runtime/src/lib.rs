//! # hookwire
//!
//! Hooks around every tool call of an LLM agent, generated at compile time.
//!
//! A hook is code that runs around a tool call: audit, guard, rewrite
//! arguments, redact results, ask a human, time out, retry. hookwire builds
//! the hooks around each tool into **one concrete nested type** (a chain of
//! [`Hooked`]s around a [`ToolHandler`]), so a call through it is statically
//! dispatched: no `Box<dyn>`, no allocation per call.
//!
//! ## The one ordering rule
//!
//! Everything is an around-hook ([`Hook`]): `(context, args, next) ->
//! outcome`. A pre hook ([`PreHook`]) is an around-hook that works before
//! calling `next`, a post hook ([`PostHook`]) one that works after it; a
//! timeout, a retry, an approval gate are around-hooks too. So there is one
//! rule for the order in which they run:
//!
//! ```text
//! agent-level hooks, in declared order (outermost first)
//!   -> tool-level hooks, in declared order
//!     -> the tool's own hooks (`#[tool(hooks = [..])]`), then its `needs_approval` gate and `on_error`
//!     -> the tool
//! ```
//!
//! With a global pre/post hook at agent level and a per-tool pre/post hook
//! at tool level, this gives exactly `global_pre -> tool_pre -> execute ->
//! tool_post -> global_post`. A deny or stop from an outer hook means no
//! inner hook and no tool runs; each hook sees the argument rewrites of the
//! hooks outside it.
//!
//! ## A chain by hand
//!
//! ```
//! use hookwire::{chain, CallScope, FnTool, Json, Router, ToolArgs, ToolCall, ToolSet, ToolHandler};
//! use hookwire::{Decision, HookError, Pre, PreHook, ToolContext};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct AddOneArgs { x: i64 }
//!
//! /// Clamps `x` to at most 10.
//! struct Clamp;
//! impl PreHook for Clamp {
//!     async fn before(&self, _cx: &mut ToolContext, args: &mut ToolArgs) -> Result<Decision, HookError> {
//!         if args.get("x").and_then(|v| v.as_i64()).is_some_and(|x| x > 10) {
//!             args.insert("x", 10.into())?;
//!         }
//!         Ok(Decision::Continue)
//!     }
//! }
//!
//! let add_one = FnTool::new("add_one", "Adds one.", |a: AddOneArgs| async move { Json(a.x + 1) });
//! let definition = hookwire::Tool::definition(&add_one);
//! let tools = Router::new().route(
//!     definition,
//!     hookwire::ToolSource::Function,
//!     chain!(hookwire::hooks::Audit, Pre(Clamp) => ToolHandler(add_one)),
//! );
//! # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! # rt.block_on(async {
//! let call = ToolCall::new("c1", "add_one", ToolArgs::from_json(r#"{"x": 50}"#));
//! let result = tools.call(&CallScope::new("demo"), call).await;
//! assert_eq!(result.text_content(), "11");
//! # });
//! ```
//!
//! ## Failure
//!
//! Nothing a model or a hook does takes the process down. Bad arguments,
//! unknown tools, denials, hook errors, panics and timeouts all become a
//! [`ToolError`], which becomes an error result the model reads
//! ([`ToolError::into_result`]). A failing hook is handled by its
//! [`FailurePolicy`] (see [`Guarded`]).
//!
//! Panics are caught once per call, at its root: every tool set runs each
//! chain through [`catch_panics`], which ends the call with an error result
//! naming the innermost hook or the tool that panicked. Each [`Hooked`] and
//! [`ToolHandler`] only attributes a panic (a guard on the stack that costs
//! nothing unless the stack unwinds), so a chain has no per-hook
//! `catch_unwind`. A panic in a fail-closed hook or in the tool therefore
//! ends the call: hooks outside it do not see an `Err` from `next`, unless
//! the panicking hook is [`Guarded`] (an `on_failure` policy or a timeout),
//! which catches its own panics so that they follow its policy. When you
//! call [`Handler::call`] on a chain you built yourself, run it through
//! [`catch_panics`] (or [`CatchPanics`]) too.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod agent;
pub mod approval;
mod call;
mod check;
mod context;
pub mod decision;
pub mod declare;
pub mod deps;
#[cfg(feature = "durable")]
pub mod durable;
mod error;
mod hook;
pub mod hooks;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
#[cfg(feature = "otel")]
pub mod otel;
mod output_schema;
mod policy;
mod predicate;
mod prepost;
mod strict_json;
mod tool;
mod toolset;
mod view;
mod wait;
mod when;

/// Locks `mutex`, and goes on with its value when a panic poisoned it:
/// every mutex here guards plain data that a panic cannot leave half
/// written (each change is one insert, push or assignment).
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Tool matchers, shared with the code generator so that a matcher means
/// the same thing at code generation time and at run time.
pub mod matcher {
    pub use hookwire_spec::{MatchTarget, Matcher, MatcherError, StepKind, ToolMeta};
}

pub use call::ImageContent;
pub use call::{
    Content, Contents, EmbeddedResource, Outcome, ToolArgs, ToolCall, ToolResult, into_result,
};
pub use context::{Extensions, ToolContext, ToolSource};
pub use decision::Decision;
pub use declare::{ArgsOf, ToolDecl};
pub use deps::{Dep, FromDeps, FromRef};
pub use error::ArgumentError;
pub use error::{ErrorMessage, HookError, ToolError};
pub use hook::{Boxed, Handler, Hook, Hooked, Next};
pub use hook::{CatchPanics, catch_panics};
pub use hooks::Attempts;
/// `#[derive(FromDeps)]`: a hand-written tool or hook type built from an
/// agent's dependencies (see [`deps`]).
pub use hookwire_macros::FromDeps;
/// The `#[tool]`, `#[hook]` and `#[agent(...)]` attribute macros.
pub use hookwire_macros::{agent, args, hook, tool};
pub use hookwire_spec::ToolMeta;
/// Joining tool sets (static tools and MCP tools): `a.join(b)`.
#[cfg(feature = "mcp")]
pub use mcp::{Joined, ToolSetExt};
pub use policy::{FailurePolicy, Guarded};
pub use predicate::Predicate;
pub use prepost::{Post, PostHook, Pre, PreHook};
pub use tool::{FnTool, IntoOutcome, Json, NoArgs, Tool, ToolDefinition, ToolHandler, schema_for};
pub use toolset::{CallScope, Router, RouterEnd, RouterEntry, RouterList, SessionValues, ToolSet};
pub use view::{InstructionFn, StepOffer, StepRules, StepView, ToolView};
pub use when::When;

/// Re-exports for generated code, so user crates need no extra dependencies.
#[doc(hidden)]
pub mod __private {
    /// Type-level checks for generated code.
    pub mod check {
        pub use crate::check::*;
    }
    /// Whether a hook's matcher selects any tool, and the compile-time
    /// check of a child agent's name, for generated code.
    pub use crate::declare::{
        child_agent_name, function_tool_name, meta_part_selects, selects, selects_any,
    };
    /// Compile-time `meta:` matching, for generated code.
    pub use crate::predicate::Const;
    pub use hookwire_spec::MetaExpr;
    /// How generated code holds the hooks a user lists: one checked slot
    /// per hook.
    pub mod slot {
        pub use crate::declare::slot::*;
    }
    /// Perfect hashing of tool names, for the dispatch code that `#[agent]`
    /// and `cardgen` generate.
    pub use hookwire_spec::dispatch;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use tokio;
    pub use tracing;
}
pub use schemars;
pub use serde_json;

/// Includes the agents that `hookwire_codegen::Builder` generated from
/// AgentCards in `build.rs` (by default `$OUT_DIR/agents/mod.rs`; pass the
/// folder name used with `Builder::out_dir` relative to `OUT_DIR` otherwise).
///
/// ```ignore
/// mod agents {
///     hookwire::include_agents!();
/// }
/// ```
#[macro_export]
macro_rules! include_agents {
    () => {
        include!(concat!(env!("OUT_DIR"), "/agents/mod.rs"));
    };
    ($folder:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $folder, "/mod.rs"));
    };
}
