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
//!     -> the tool's own hooks (`#[tool(tool_hooks = [..])]`), then its `needs_approval` gate and `on_error`
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
//! chain through [`catch_panics`](hooks::catch_panics), which ends the
//! call with an error result naming the innermost hook or the tool that
//! panicked. Each [`Hooked`] and
//! [`ToolHandler`] only attributes a panic (a guard on the stack that costs
//! nothing unless the stack unwinds), so a chain has no per-hook
//! `catch_unwind`. A panic in a fail-closed hook or in the tool therefore
//! ends the call: hooks outside it do not see an `Err` from `next`, unless
//! the panicking hook is [`Guarded`] (an `on_failure` policy or a timeout),
//! which catches its own panics so that they follow its policy. When you
//! call [`Handler::call`] on a chain you built yourself, run it through
//! [`catch_panics`](hooks::catch_panics) (or
//! [`CatchPanics`](hooks::CatchPanics)) too.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod agent;
pub mod approval;
pub mod declare;
#[cfg(feature = "durable")]
#[cfg_attr(docsrs, doc(cfg(feature = "durable")))]
pub mod durable;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
pub mod model;
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod otel;
mod output_schema;
pub mod outside;
pub mod secret;

// The chain's modules under their old names, for the code of this crate.
pub(crate) use hookwire_chain::{
    call_log, channel, context, decision, error, hook, lock, policy, predicate, prepost, scope,
    strict_json, wait,
};

pub mod prelude;

// Names the code of this crate uses at its root without publishing them
// there (their public paths are in the modules below).
pub(crate) use hookwire_chain::{
    ToolMeta,
    view::{StepOffer, StepRules, StepView, ToolView},
};

// The crate root: what most users name (at most 40 names; the rest live in
// the modules below, each at one path).
pub use ::schemars;
pub use ::serde_json;
/// `#[derive(FromDeps)]` and the trait it implements: a hand-written tool
/// or hook type built from an agent's dependencies (see [`deps`]).
pub use hookwire_chain::FromDeps;
pub use hookwire_chain::chain;
pub use hookwire_chain::{
    BoxFuture, CallScope, Decision, Dep, FailurePolicy, FnTool, Guarded, Handler, Hook, HookError,
    Hooked, IntoOutcome, Json, Next, Outcome, Post, PostHook, Pre, PreHook, Router, Tool, ToolArgs,
    ToolCall, ToolContext, ToolDefinition, ToolError, ToolHandler, ToolResult, ToolSet, ToolSource,
    When,
};
pub use hookwire_macros::FromDeps;
/// The `#[tool]`, `#[hook]` and `#[agent(...)]` attribute macros, and
/// `#[args]` for a tool's argument types.
pub use hookwire_macros::{agent, args, hook, tool};
/// An agent's policy as data: its tools, the hooks each call runs
/// through in order, their failure policies and timeouts, and each tool's
/// approval rule (`MyAgent::policy()`, `to_json()`; see [`review`]).
pub use hookwire_spec::Policy;

/// What a call carries besides its arguments: result contents, argument
/// errors, the typed extension map, a session's values, and the channel up
/// to the run it belongs to.
pub mod call {
    pub use hookwire_chain::call::{
        CallStr, Content, Contents, EmbeddedResource, ImageContent, NoArgs, schema_for,
    };
    pub use hookwire_chain::call_log::{CallLog, CallNotes};
    pub use hookwire_chain::{
        ArgumentError, CallReport, ErrorMessage, Extensions, RunChannel, SessionValues, into_result,
    };
}

/// What a tool says about one step of a run: its availability and its
/// instruction ([`Tool::available`], [`Tool::instruction`]), and what the
/// approval gates know of it.
pub mod view {
    pub use hookwire_chain::view::{InstructionFn, StepOffer, StepRules, StepView, ToolView};
}

/// Built-in hooks (timeout, retry, audit) and the combinators chains are
/// built from besides [`Hooked`].
pub mod hooks {
    pub use hookwire_chain::hooks::{
        Attempts, Audit, Boxed, CatchPanics, Retry, RetryPolicy, Timeout, audit, catch_panics,
    };
}

/// Tool matchers, shared with the code generator so that a matcher means
/// the same thing at code generation time and at run time, and the
/// predicates that gate a hook per call.
pub mod matcher {
    pub use hookwire_chain::matcher::{
        MatchTarget, Matcher, MatcherError, Predicate, StepKind, ToolMeta,
    };
}

/// The parts of an agent's [`Policy`] and the coverage rules it can be
/// held to (CARDS.md, "The policy document" and "Coverage rules").
pub mod review {
    pub use hookwire_spec::{
        Approval, CoverageKind, CoverageProblem, CoverageRule, HookLevel, POLICY_VERSION,
        PolicyHook, PolicyTool, Selected, ToolKind, coverage_message, coverage_problem,
    };
}

/// The parts of a [`Router`]'s type: its list of routes.
pub mod toolset {
    pub use hookwire_chain::toolset::{RouterEnd, RouterEntry, RouterList};
}

/// Building tools and hooks from an agent's dependencies: the
/// [`FromDeps`] trait and [`Dep`] are at the crate root.
pub mod deps {
    pub use hookwire_chain::deps::{BuildHook, FromRef, IsHook};
}

/// Re-exports for generated code, so user crates need no extra dependencies.
#[doc(hidden)]
pub mod __private {
    pub use hookwire_chain::__private::*;
    /// Type-level checks for generated code.
    pub mod check {
        pub use crate::declare::check::*;
    }
    /// How generated code holds the hooks and child agents a user lists:
    /// one checked slot per item.
    pub mod slot {
        pub use crate::declare::slot::*;
    }
}

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
