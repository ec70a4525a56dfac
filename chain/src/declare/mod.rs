//! What a declaration carries beyond the core traits: a tool's own hooks,
//! approval rule and error mapping ([`ToolDecl`]), and an agent's declared
//! name (`hookwire::declare::GeneratedAgent`).
//!
//! This file holds [`ToolDecl`] and [`ArgsOf`]; `on_error.rs` the error
//! mapping ([`OnError`], [`MapError`]); `approval.rs` the typed
//! `needs_approval` predicate; `agent.rs` what generated agents check
//! about themselves (`hookwire::declare::GeneratedAgent`).
//!
//! `#[hookwire::tool(tool_hooks = [..], needs_approval, on_error = ..)]` cannot
//! tell the `#[agent]` macro what the tool carries (each macro sees only its
//! own item), so the tool carries it in its type: the tool type implements
//! [`ToolDecl`], whose [`Handler`](ToolDecl::Handler) is the tool's own
//! chain. Every generated agent uses that handler as the innermost handler
//! of the tool's chain, so every agent that lists the tool runs the tool's
//! own hooks, innermost:
//!
//! ```text
//! agent-level hooks -> the agent entry's tool hooks -> the tool's own hooks
//!   -> needs_approval -> on_error -> the tool
//! ```
//!
//! Every [`Tool`] is a [`ToolDecl`] whose handler is [`ToolHandler<Self>`]
//! (no hooks, no cost), so hand-written tools need nothing more.
//!
//! An input guardrail, an output guardrail, an error mapping and an
//! approval predicate:
//!
//! ```
//! use hookwire::{Decision, Outcome, ToolArgs, ToolContext, ToolError, ToolResult};
//!
//! /// Input guardrail: a call whose text mentions a password never runs.
//! #[hookwire::hook]
//! async fn no_secrets(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
//!     match args.get("text").and_then(|t| t.as_str()) {
//!         Some(t) if t.contains("password") => Decision::Deny("the text contains a password".into()),
//!         _ => Decision::Continue,
//!     }
//! }
//!
//! /// Output guardrail: masks digits, and blocks a result that mentions a key.
//! #[hookwire::hook]
//! async fn redact(_cx: &mut ToolContext, outcome: &mut Outcome) {
//!     if let Ok(result) = outcome {
//!         let text = result.text_content();
//!         if text.contains("key") {
//!             *outcome = Err(ToolError::denied("the result contains a key"));
//!         } else {
//!             *result = ToolResult::text(text.replace(|c: char| c.is_ascii_digit(), "#"));
//!         }
//!     }
//! }
//!
//! /// What the model reads when the write fails (the tool's error, bad
//! /// arguments, a panic): here a plain answer instead of an error.
//! fn explain(error: ToolError) -> String {
//!     format!("nothing was written ({error}); try a path outside /ro/")
//! }
//!
//! /// Writes a file.
//! #[hookwire::tool(tool_hooks = [no_secrets, redact(on_failure = "open")], on_error = explain)]
//! fn write_file(path: String, text: String) -> Result<String, String> {
//!     if path.starts_with("/ro/") { Err(format!("{path} is read-only")) } else { Ok(format!("wrote {text} to {path}")) }
//! }
//!
//! /// Deletes a file; asks the approver for paths outside /tmp.
//! #[hookwire::tool(needs_approval = outside_tmp)]
//! fn delete(path: String) -> String { format!("deleted {path}") }
//!
//! fn outside_tmp(args: &hookwire::declare::ArgsOf<delete>) -> bool {
//!     !args.path.starts_with("/tmp/")
//! }
//!
//! use hookwire::{CallScope, Router, ToolCall, ToolSet};
//! let tools = Router::new().tool(write_file {});
//! # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
//! # rt.block_on(async {
//! let call = |text: &str| ToolCall::new("c1", "write_file", ToolArgs::from_json(format!(r#"{{"path": "/a", "text": "{text}"}}"#)));
//! let scope = CallScope::new("demo");
//! assert_eq!(tools.call(&scope, call("v2")).await.text_content(), "wrote v# to /a");
//! assert_eq!(
//!     tools.call(&scope, call("my password")).await.text_content(),
//!     "tool call denied by `no_secrets`: the text contains a password"
//! );
//! # });
//! ```

use crate::hook::Handler;
use crate::tool::{Tool, ToolHandler};

mod approval;
mod on_error;
mod select;
pub mod slot;

pub use approval::{
    ApprovalMetadata, approval_metadata_for, available_by, instruction_by, needs_approval_by,
    needs_approval_for,
};
pub use on_error::{MapError, OnError, error_text, map_error};
pub use select::{child_agent_name, function_tool_name, meta_part_selects, selects, selects_any};

/// A tool as an agent lists it: the tool itself, and the handler every
/// chain of the tool ends in (the tool's own hooks around it).
///
/// Every [`Tool`] implements it with [`ToolHandler<Self>`] as its handler.
/// `#[hookwire::tool]` with `hooks`, `needs_approval` or `on_error`
/// implements it instead of `Tool` (the tool inside is
/// [`ToolDecl::Tool`]). [`Router::tool`](crate::Router::tool) takes either;
/// use [`ToolDecl::into_handler`] to put such a tool into a hand-built chain:
///
/// ```
/// use hookwire::{CallScope, ToolArgs, ToolCall, ToolSet, Router, declare::ToolDecl};
///
/// /// Shouts.
/// #[hookwire::tool(on_error = hookwire::declare::error_text)]
/// fn shout(text: String) -> String {
///     text.to_uppercase()
/// }
///
/// let tools = Router::new().route(
///     shout {}.describe(),
///     hookwire::ToolSource::Function,
///     shout {}.into_handler(),
/// );
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let call = ToolCall::new("c1", "shout", ToolArgs::from_json(r#"{"text": "hi"}"#));
/// assert_eq!(tools.call(&CallScope::new("demo"), call).await.text_content(), "HI");
/// # });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire tool",
    label = "not a tool",
    note = "declare tools with `#[hookwire::tool]` on a (sync or async) fn whose parameters are `Deserialize + JsonSchema`, or implement `hookwire::Tool`"
)]
pub trait ToolDecl: Send + Sync + Sized {
    /// The tool that parses the arguments and runs.
    type Tool: Tool;
    /// The innermost handler of the tool's chains: the tool's own hooks
    /// (outermost first), its approval gate and its error mapping around
    /// [`ToolHandler<Self::Tool>`].
    type Handler: Handler;

    /// The tool's own hooks (`#[tool(tool_hooks = [..])]`), outermost
    /// first, as an agent's policy shows them (`hookwire::Policy`).
    const OWN_HOOKS: &'static [hookwire_spec::PolicyHook] = &[];

    /// The tool's own approval rule (`#[tool(needs_approval)]`), as an
    /// agent's policy shows it.
    const APPROVAL: hookwire_spec::Approval = hookwire_spec::Approval::None;

    /// Builds the handler.
    fn into_handler(self) -> Self::Handler;

    /// The tool inside a handler built by [`into_handler`](Self::into_handler).
    fn tool(handler: &Self::Handler) -> &Self::Tool;

    /// The definition the model sees (the tool's
    /// [`definition`](Tool::definition)).
    fn describe(&self) -> crate::ToolDefinition;
}

#[diagnostic::do_not_recommend]
impl<T: Tool> ToolDecl for T {
    type Tool = T;
    type Handler = ToolHandler<T>;

    #[inline]
    fn into_handler(self) -> ToolHandler<T> {
        ToolHandler(self)
    }

    #[inline]
    fn tool(handler: &ToolHandler<T>) -> &T {
        &handler.0
    }

    fn describe(&self) -> crate::ToolDefinition {
        Tool::definition(self)
    }
}

/// The typed arguments of a tool declaration: what a `needs_approval`
/// predicate receives.
///
/// ```
/// /// Deletes a file.
/// #[hookwire::tool(needs_approval = outside_tmp)]
/// fn delete(path: String) -> String {
///     path
/// }
///
/// fn outside_tmp(args: &hookwire::declare::ArgsOf<delete>) -> bool {
///     !args.path.starts_with("/tmp/")
/// }
/// # let _ = delete {};
/// ```
pub type ArgsOf<T> = <<T as ToolDecl>::Tool as Tool>::Args;
