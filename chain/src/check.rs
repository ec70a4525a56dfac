//! Type-level checks that generated code calls, spanned on the user's
//! tokens, so a type mistake reads as one sentence at the right place.
//!
//! Each function is a no-op whose bound is the check; `#[tool]`, `#[hook]`,
//! `#[agent]` and `cardgen` emit calls like `check::hook::<T>()` with the
//! span of the type the user wrote.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::hook::Hook;
use crate::tool::{IntoOutcome, Tool};

/// A type a tool parameter may have: `Deserialize + JsonSchema`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: a parameter type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    label = "not `Deserialize + JsonSchema`",
    note = "mark your type `#[hookwire::args]`, which derives both through hookwire (no serde or schemars dependency needed)"
)]
pub trait ToolArg: DeserializeOwned + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolArg for T {}

/// Checks the type of a tool parameter with a default
/// (`#[default(..)]`): the schema shows the default, so it is serialized.
pub const fn default_arg<T: DefaultArg>() {}

/// A type a tool parameter with a default may have: `Serialize` too.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot have a default: the tool's schema shows the default value to the model, so the type must implement `serde::Serialize`",
    label = "not `Serialize`",
    note = "add `#[derive(serde::Serialize)]` to the type, or drop `#[default(..)]` and take an `Option<T>`"
)]
pub trait DefaultArg: serde::Serialize {}

#[diagnostic::do_not_recommend]
impl<T: serde::Serialize> DefaultArg for T {}

/// Checks a tool return type.
pub const fn tool_return<T: IntoOutcome>() {}

/// Checks a `tool_hooks`/`hooks` entry.
pub const fn hook<T: Hook>(_: &T) {}

/// Checks a `function_tools` entry.
pub const fn tool<T: Tool>(_: &T) {}
