//! What a declaration carries beyond the core traits: a tool's own hooks,
//! approval rule and error mapping ([`ToolDecl`]), and an agent's declared
//! name ([`DeclaredAgent`]).
//!
//! `#[hookwire::tool(hooks = [..], needs_approval, on_error = ..)]` cannot
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
//! #[hookwire::tool(hooks = [no_secrets, redact(on_failure = "open")], on_error = explain)]
//! fn write_file(path: String, text: String) -> Result<String, String> {
//!     if path.starts_with("/ro/") { Err(format!("{path} is read-only")) } else { Ok(format!("wrote {text} to {path}")) }
//! }
//!
//! /// Deletes a file; asks the approver for paths outside /tmp.
//! #[hookwire::tool(needs_approval = outside_tmp)]
//! fn delete(path: String) -> String { format!("deleted {path}") }
//!
//! fn outside_tmp(args: &hookwire::ArgsOf<delete>) -> bool {
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

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::hook::Handler;
use crate::tool::{IntoOutcome, Tool, ToolHandler};

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
/// use hookwire::{CallScope, ToolArgs, ToolCall, ToolDecl, ToolSet, Router};
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
/// fn outside_tmp(args: &hookwire::ArgsOf<delete>) -> bool {
///     !args.path.starts_with("/tmp/")
/// }
/// # let _ = delete {};
/// ```
pub type ArgsOf<T> = <<T as ToolDecl>::Tool as Tool>::Args;

/// A function that maps a tool's error to what the model reads: the
/// `on_error = path` of `#[hookwire::tool]`.
///
/// Any `fn(ToolError) -> R` where `R:` [`IntoOutcome`] is one: return a
/// `String` or a [`ToolResult`](crate::ToolResult) to recover (the model
/// reads it as the tool's result), or an `Outcome` / `Result<_, ToolError>`
/// to keep an error with another message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an `on_error` mapping",
    label = "expected `fn(ToolError) -> R` where `R: IntoOutcome`",
    note = "an `on_error` mapping is a function such as `fn on_error(error: hookwire::ToolError) -> String`; it may return `String`, `ToolResult`, `Json<T>` or `Outcome`"
)]
pub trait OnError: Send + Sync {
    /// Maps the error of the tool named `tool`.
    fn on_error(&self, error: ToolError, tool: &str) -> Outcome;
}

#[diagnostic::do_not_recommend]
impl<F, R> OnError for F
where
    F: Fn(ToolError) -> R + Send + Sync,
    R: IntoOutcome,
{
    fn on_error(&self, error: ToolError, tool: &str) -> Outcome {
        self(error).into_outcome(tool)
    }
}

/// An `on_error` mapping that gives the model the error's message as a
/// plain (non-error) text result.
pub fn error_text(error: ToolError) -> String {
    error.to_string()
}

/// Maps `error` of the tool `tool` with `map`: what generated `on_error`
/// code calls, so that a mapping of the wrong type is an error on its path.
#[inline]
pub fn map_error<F: OnError>(map: F, error: ToolError, tool: &str) -> Outcome {
    map.on_error(error, tool)
}

/// The `on_error` mapping as a handler: runs `inner`, and gives its error
/// (bad arguments, the tool's own error, a panic in the tool) to `E`.
/// Denials of the tool's hooks and of its approval gate are outside it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MapError<E, N> {
    map: E,
    inner: N,
}

impl<E, N> MapError<E, N> {
    /// `map` around `inner`.
    pub const fn new(map: E, inner: N) -> Self {
        Self { map, inner }
    }

    /// The inner handler.
    pub fn inner(&self) -> &N {
        &self.inner
    }
}

impl<E: OnError, N: Handler> Handler for MapError<E, N> {
    async fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> Outcome {
        match self.inner.call(cx, args).await {
            Err(error) => self.map.on_error(error, cx.tool()),
            ok => ok,
        }
    }
}

/// A `needs_approval` predicate on a tool's typed arguments:
/// `fn(&Args) -> bool` (name the type as [`ArgsOf<tool>`](ArgsOf)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `needs_approval` predicate: expected `fn(&Args) -> bool` over the tool's arguments",
    label = "expected `fn(&hookwire::ArgsOf<tool>) -> bool`",
    note = "write the predicate as `fn risky(args: &hookwire::ArgsOf<my_tool>) -> bool`, or use the bare flag `needs_approval` to ask for every call"
)]
pub trait ApprovalPredicate<A>: Send + Sync {
    /// Whether a call with these arguments needs approval.
    fn needs_approval(&self, args: &A) -> bool;
}

#[diagnostic::do_not_recommend]
impl<A, F> ApprovalPredicate<A> for F
where
    F: Fn(&A) -> bool + Send + Sync,
{
    fn needs_approval(&self, args: &A) -> bool {
        self(args)
    }
}

/// Whether a call with `args` needs approval by `predicate` on the typed
/// arguments `A`. Arguments that do not deserialize into `A` always need
/// approval (fail closed).
pub fn needs_approval_by<A, P>(predicate: P, args: &Value) -> bool
where
    A: DeserializeOwned + JsonSchema,
    P: ApprovalPredicate<A>,
{
    match A::deserialize(args) {
        Ok(typed) => predicate.needs_approval(&typed),
        Err(_) => true,
    }
}

/// Whether `matcher` (a generated agent's compiled matcher; `None` if its
/// pattern did not compile) selects any of `tools`: what a generated
/// `AgentDecl::hooks_selecting_none` asks of each of its hooks.
#[doc(hidden)]
pub fn selects_any(
    matcher: &Option<crate::matcher::Matcher>,
    tools: &[(&str, crate::context::ToolSource)],
) -> bool {
    matcher.as_ref().is_some_and(|m| {
        tools
            .iter()
            .any(|(name, source)| m.matches(crate::matcher::MatchTarget::new(name, *source)))
    })
}

/// An agent declared with `#[hookwire::agent]` or an AgentCard, with the
/// name it was declared with: a parent that lists it in `agents = [..]` is
/// checked against it at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire agent",
    label = "not an agent",
    note = "agents are structs marked `#[hookwire::agent(...)]`, or generated from AgentCards by `cardgen`"
)]
pub trait DeclaredAgent: crate::agent::AgentDecl {
    /// The declared name (`name = "..."`, or the struct's name).
    const NAME: &'static str;
}

/// Checks, at compile time, that a parent lists the child agent `path`
/// under the child's declared name; otherwise compilation fails with a
/// message that says what to write.
#[doc(hidden)]
pub const fn child_agent_name(declared: &str, used: &str, path: &str) {
    if str_eq(declared, used) {
        return;
    }
    let mut buf = [0u8; 1024];
    let mut len = 0;
    let parts = [
        "child agent `",
        path,
        "` is declared with `name = \"",
        declared,
        "\"`, but it is listed under the name `",
        used,
        "`, so its tool would be `agent__",
        used,
        "` while the child calls itself `agent__",
        declared,
        "`: write `agents = [",
        path,
        "(name = \"",
        declared,
        "\")]`",
    ];
    let mut i = 0;
    while i < parts.len() {
        let bytes = parts[i].as_bytes();
        let mut j = 0;
        while j < bytes.len() && len < buf.len() {
            buf[len] = bytes[j];
            len += 1;
            j += 1;
        }
        i += 1;
    }
    let (text, _) = buf.split_at(len);
    match core::str::from_utf8(text) {
        Ok(message) => panic!("{}", message),
        Err(_) => panic!("a child agent is listed under another name than it was declared with"),
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_bytewise() {
        assert!(str_eq("ny", "ny"));
        assert!(!str_eq("ny", "Ny"));
        assert!(!str_eq("ny", "nyc"));
        child_agent_name("ny", "ny", "Ny");
    }

    #[test]
    fn a_typed_predicate_fails_closed_on_arguments_that_do_not_deserialize() {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        struct A {
            path: String,
        }
        let outside_tmp = |a: &A| !a.path.starts_with("/tmp/");
        assert!(!needs_approval_by::<A, _>(
            outside_tmp,
            &serde_json::json!({"path": "/tmp/x"})
        ));
        assert!(needs_approval_by::<A, _>(
            outside_tmp,
            &serde_json::json!({"path": "/etc"})
        ));
        assert!(needs_approval_by::<A, _>(
            outside_tmp,
            &serde_json::json!({"path": 7})
        ));
    }
}
