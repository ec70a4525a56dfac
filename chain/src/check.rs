//! Type-level checks that generated code calls, spanned on the user's
//! tokens, so a type mistake reads as one sentence at the right place.
//!
//! Each function is a no-op whose bound is the check; `#[tool]`, `#[hook]`,
//! `#[agent]` and `cardgen` emit calls like `check::hook::<T>()` with the
//! span of the type the user wrote.

use std::marker::PhantomData;

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

/// A typed pre hook (one that takes a tool's arguments as their Rust type):
/// `#[hook]` implements it, with [`HookArgs`] for that type.
pub trait TypedHook {}

/// The tool arguments `A` a typed hook runs on: `#[hook]` implements it for
/// the one type its function takes.
#[diagnostic::on_unimplemented(
    message = "typed hook `{Self}` cannot run on a tool whose arguments are `{A}`",
    label = "this hook takes the arguments of another tool",
    note = "a typed hook runs only on the tools whose arguments are its own type: narrow its `match` to those tools, or take `args: &mut ToolArgs` to read any tool's arguments as JSON"
)]
pub trait HookArgs<A> {}

/// A hook that may run on tools found at run time (an MCP server's),
/// whose arguments are known only as JSON: no typed hook is.
#[diagnostic::on_unimplemented(
    message = "typed hook `{Self}` cannot run on tools found at run time, whose arguments are JSON",
    label = "this hook takes a tool's arguments as their Rust type",
    note = "give it a `match` that selects only the tools with its arguments, or take `args: &mut ToolArgs` to read any tool's arguments as JSON"
)]
pub trait RunsOnJsonArguments {}

/// Which hooks generated code attaches to a tool with arguments `A`, for
/// the check that a typed hook runs only on its own arguments: generated
/// code writes `(&ArgsProbe::<Hook, Args>::NEW).check_args()`, and method
/// resolution picks [`ProbeTyped`] for a typed hook (whose bound is the
/// check) and [`ProbeAny`] for any other hook (no check).
pub struct ArgsProbe<H, A>(PhantomData<fn() -> (H, A)>);

impl<H, A> ArgsProbe<H, A> {
    /// The probe.
    pub const NEW: Self = Self(PhantomData);
}

/// The probe of a typed hook: its bound is the check.
pub trait ProbeTyped<H, A> {
    /// Checks that typed hook `H` runs on arguments `A`.
    #[inline]
    fn check_args(&self)
    where
        H: HookArgs<A>,
    {
    }

    /// Checks that hook `H` may run on tools found at run time: never, for
    /// a typed hook.
    #[inline]
    fn check_json_args(&self)
    where
        H: RunsOnJsonArguments,
    {
    }
}

impl<H: TypedHook, A> ProbeTyped<H, A> for ArgsProbe<H, A> {}

/// The probe of any other hook: nothing to check.
pub trait ProbeAny {
    /// No check.
    #[inline]
    fn check_args(&self) {}

    /// No check.
    #[inline]
    fn check_json_args(&self) {}
}

impl<H, A> ProbeAny for &ArgsProbe<H, A> {}
