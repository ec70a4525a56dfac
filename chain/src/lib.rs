//! # hookwire-chain
//!
//! The tool-call chain of [hookwire](https://docs.rs/hookwire): tools,
//! hooks and their combinators, the call's context, arguments, results,
//! decisions and errors, the built-in hooks, and the approval gate a chain
//! asks through. It knows nothing of the agent loop, models, events or the
//! approval store: what a call must tell its run goes up through
//! [`RunChannel`], which the loop implements.
//!
//! Users depend on `hookwire`, which re-exports what they need from here;
//! the code `#[tool]`, `#[hook]` and generated chains compile to needs this
//! crate only.
//!
//! ## The one ordering rule
//!
//! Everything is an around-hook ([`Hook`]): `(context, args, next) ->
//! outcome`. A pre hook ([`PreHook`]) is an around-hook that works before
//! calling `next`, a post hook ([`PostHook`]) one that works after it; a
//! timeout, a retry, an approval gate are around-hooks too:
//!
//! ```text
//! agent-level hooks, in declared order (outermost first)
//!   -> tool-level hooks, in declared order
//!     -> the tool's own hooks, then its `needs_approval` gate and `on_error`
//!     -> the tool
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod approve;
pub mod call;
pub mod call_log;
pub mod channel;
pub mod check;
pub mod context;
pub mod decision;
pub mod declare;
pub mod deps;
pub mod error;
pub mod hook;
pub mod hooks;
pub mod message;
pub mod policy;
pub mod predicate;
pub mod prepost;
pub mod scope;
#[doc(hidden)]
pub mod strict_json;
pub mod tool;
pub mod toolset;
pub mod view;
pub mod wait;
pub mod when;

use std::future::Future;
use std::pin::Pin;

/// A boxed future, the return type of the object-safe async traits of
/// hookwire (approvers, models): never on a call's hot path.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Locks `mutex`, and goes on with its value when a panic poisoned it:
/// every mutex here guards plain data that a panic cannot leave half
/// written (each change is one insert, push or assignment).
#[doc(hidden)]
pub fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Tool matchers, shared with the code generator so that a matcher means
/// the same thing at code generation time and at run time.
pub mod matcher {
    pub use crate::predicate::Predicate;
    pub use hookwire_spec::{MatchTarget, Matcher, MatcherError, StepKind, ToolMeta};
}

pub use call::{
    Content, Contents, EmbeddedResource, ImageContent, Outcome, ToolArgs, ToolCall, ToolResult,
    into_result,
};
pub use channel::{CallReport, RunChannel};
pub use context::{Extensions, ToolContext, ToolSource};
pub use decision::Decision;
pub use declare::{ArgsOf, ToolDecl};
pub use deps::{Dep, FromDeps, FromRef};
pub use error::{ArgumentError, ErrorMessage, HookError, ToolError};
pub use hook::{Boxed, CatchPanics, Handler, Hook, Hooked, Next, catch_panics};
pub use hooks::Attempts;
pub use hookwire_spec::ToolMeta;
pub use policy::{FailurePolicy, Guarded};
pub use predicate::Predicate;
pub use prepost::{Post, PostHook, Pre, PreHook};
pub use scope::{CallScope, SessionValues};
pub use tool::{FnTool, IntoOutcome, Json, NoArgs, Tool, ToolDefinition, ToolHandler, schema_for};
pub use toolset::{Router, RouterEnd, RouterEntry, RouterList, ToolSet};
pub use view::{InstructionFn, StepOffer, StepRules, StepView, ToolView};
pub use when::When;

/// Re-exports for generated code, so user crates need no extra dependencies.
#[doc(hidden)]
pub mod __private {
    /// Type-level checks for generated code.
    pub mod check {
        pub use crate::check::*;
    }
    /// A tool's own approval gate (`#[tool(needs_approval)]`), at the same
    /// path under `hookwire` and `hookwire_chain`.
    pub use crate::approve::NeedsApproval;
    /// Whether a hook's matcher selects any tool, for generated code.
    pub use crate::declare::{
        child_agent_name, function_tool_name, meta_part_selects, selects, selects_any,
    };
    /// Compile-time `meta:` matching, for generated code.
    pub use crate::predicate::Const;
    pub use hookwire_spec::MetaExpr;
    /// An agent's policy and its coverage checks, for generated code.
    pub mod review {
        pub use hookwire_spec::{
            Approval, CoverageKind, CoverageRule, FailurePolicy, HookKind, HookLevel, Policy,
            PolicyHook, PolicyTool, Selected, ToolKind, check_coverage,
        };
    }
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
