//! Type-level checks that generated code goes through, spanned on the
//! user's tokens, so a type mistake reads as one sentence at the right
//! place.
//!
//! Generated code names a user's type through one of these traits (for
//! example `<T as IsHook>::Hook` instead of `T`): when `T` is not a hook,
//! the error is this trait's `#[diagnostic::on_unimplemented]` sentence on
//! the user's token, and everything built from the erroneous type is
//! silenced instead of failing once more per use.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::agent::AgentDecl;
use crate::hook::Hook;
use crate::tool::{IntoOutcome, Tool};

/// A type a tool parameter may have: `Deserialize + JsonSchema`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: a parameter type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    label = "not `Deserialize + JsonSchema`",
    note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait ToolArg {
    /// The type itself.
    type Arg: DeserializeOwned + JsonSchema;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolArg for T {
    type Arg = T;
}

/// The type of a tool parameter, checked.
pub type Arg<T> = <T as ToolArg>::Arg;

/// A `tool_hooks` or `hooks` entry.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire hook",
    label = "not a hook",
    note = "a hook is an `async fn(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome` (or a pre/post hook) marked `#[hookwire::hook]`, or a type that implements `hookwire::Hook`"
)]
pub trait IsHook {
    /// The type itself.
    type Hook: Hook + Default;
}

#[diagnostic::do_not_recommend]
impl<T: Hook + Default> IsHook for T {
    type Hook = T;
}

/// A `function_tools` entry.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire tool",
    label = "not a tool",
    note = "declare tools with `#[hookwire::tool]` on a (sync or async) fn whose parameters are `Deserialize + JsonSchema`, or implement `hookwire::Tool` (and `Default`)"
)]
pub trait IsTool {
    /// The type itself.
    type Tool: Tool + Default;
}

#[diagnostic::do_not_recommend]
impl<T: Tool + Default> IsTool for T {
    type Tool = T;
}

/// An `agents` entry.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire agent",
    label = "not an agent",
    note = "agents are structs marked `#[hookwire::agent(...)]`, or generated from AgentCards by `cardgen`"
)]
pub trait IsAgent {
    /// The type itself.
    type Agent: AgentDecl;
}

#[diagnostic::do_not_recommend]
impl<T: AgentDecl> IsAgent for T {
    type Agent = T;
}

/// Checks a tool return type.
pub const fn tool_return<T: IntoOutcome>() {}
