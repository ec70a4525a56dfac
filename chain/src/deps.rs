//! Dependencies: what an agent's tools and hooks are built from.
//!
//! An agent is a value built from its dependencies (a database pool, an HTTP
//! client, a configuration), once, and shared by every session it serves.
//! hookwire takes axum's shape for this, because it is the one Rust users
//! already know and because it is checked by the compiler:
//!
//! * the agent declares one dependency type, `#[agent(deps = AppDeps)]` (a
//!   card: `deps: deps.rs:AppDeps`), and is built with `Agent::new(&deps)`;
//! * a tool takes a part of it as a parameter, [`Dep<T>`], next to its
//!   arguments, like axum's `State<T>` extractor; the part is any `T` that
//!   implements [`FromRef<AppDeps>`] (every `Clone` type is a part of itself,
//!   and `#[derive(hookwire::deps::FromRef)]`-style impls are one line each);
//! * every tool and child agent of the agent is built by
//!   [`FromDeps<AppDeps>`], which `#[tool]` and `#[agent]` implement; a hook
//!   is built with `Default` (every `#[hook]` has one) or, for a hook type
//!   whose fields come from the dependencies, with its `FromDeps`. A
//!   hand-written tool or such a hook derives it:
//!   `#[derive(hookwire::FromDeps)]` (each field is taken with `FromRef`).
//!
//! A tool that asks for a `Dep<T>` the agent's dependencies do not provide
//! does not compile: the error names `T`, the dependency type, and the
//! parameter. Nothing is looked up at run time, and nothing lives in a
//! `static`.
//!
//! Why not methods on a struct that holds the dependencies (rig's form)?
//! Because a plain function with a `Dep<T>` parameter keeps a tool one
//! function, as every other tool is, and lets one agent give each tool only
//! the parts it needs; a hand-written tool type with fields works too
//! (derive `FromDeps`).
//!
//! ```
//! use hookwire::Dep;
//! use std::sync::Arc;
//!
//! /// What the tools need, built once per process.
//! #[derive(Clone)]
//! struct AppDeps {
//!     prices: Arc<Prices>,
//! }
//! struct Prices;
//! impl Prices {
//!     fn of(&self, item: &str) -> u32 { item.len() as u32 }
//! }
//! impl hookwire::deps::FromRef<AppDeps> for Arc<Prices> {
//!     fn from_ref(deps: &AppDeps) -> Self { deps.prices.clone() }
//! }
//!
//! /// The price of an item.
//! #[hookwire::tool]
//! fn price(prices: Dep<Arc<Prices>>, item: String) -> String {
//!     prices.of(&item).to_string()
//! }
//!
//! #[hookwire::agent(name = "shop", deps = AppDeps, function_tools = [price])]
//! pub struct Shop;
//!
//! let shop = Shop::new(&AppDeps { prices: Arc::new(Prices) });
//! # let _ = shop;
//! ```

use std::ops::{Deref, DerefMut};

/// A value built from an agent's dependencies `D`: every tool, hook and
/// child agent of a generated agent is.
///
/// `#[tool]` and `#[agent]` implement it; for a hand-written tool, or a
/// hook type with fields, `#[derive(hookwire::FromDeps)]` implements it (a
/// unit type for any `D`, a struct by taking each field with [`FromRef`]).
/// A hook with a `Default` needs nothing: generated agents build it with
/// `Default::default()`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be built from the agent's dependencies `{D}`",
    label = "not `FromDeps<{D}>`",
    note = "declare it with `#[hookwire::tool]`, `#[hookwire::hook]` or `#[hookwire::agent]`, or add `#[derive(hookwire::FromDeps)]` to a hand-written type"
)]
pub trait FromDeps<D>: Sized {
    /// Builds the value.
    fn from_deps(deps: &D) -> Self;
}

/// How a generated agent builds a hook from its dependencies `D`: a hook
/// with a `Default` (every `#[hookwire::hook]`, and hand-written hooks
/// without dependencies) with `Default::default()`; a hook type whose fields
/// come from the dependencies with its [`FromDeps`] impl, which
/// `#[derive(hookwire::FromDeps)]` writes together with this one.
///
/// Hooks and tools are built through two traits so that a tool's
/// [`FromDeps`] impl is the only one that can build it: a missing
/// dependency is then reported as the dependency it is.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "hook `{Self}` cannot be built from the agent's dependencies `{D}`",
    label = "no `Default`, and not `FromDeps<{D}>`",
    note = "a hook without dependencies implements `Default`; a hook type whose fields come from the dependencies adds `#[derive(hookwire::FromDeps)]`"
)]
pub trait BuildHook<D>: Sized {
    /// Builds the hook.
    fn build_hook(deps: &D) -> Self;
}

impl<D, H: crate::Hook + Default> BuildHook<D> for H {
    #[inline]
    fn build_hook(_: &D) -> Self {
        H::default()
    }
}

/// A hook, for the `BuildHook` impl that `#[derive(FromDeps)]` writes (a
/// bound that names `D`, so that it is not checked on types that are not
/// hooks).
#[doc(hidden)]
pub trait IsHook<D> {}

impl<D, H: crate::Hook> IsHook<D> for H {}

/// A part of the dependencies `D` that a tool or hook can ask for: axum's
/// `FromRef`. Every `Clone` type is a part of itself.
#[diagnostic::on_unimplemented(
    message = "the agent's dependencies `{D}` do not provide `{Self}`",
    label = "`{Self}` is not provided by `{D}`",
    note = "provide it with `impl hookwire::deps::FromRef<{D}> for {Self}`, or declare the agent with `deps = {Self}`"
)]
pub trait FromRef<D> {
    /// Takes the part out of the dependencies.
    fn from_ref(deps: &D) -> Self;
}

impl<T: Clone> FromRef<T> for T {
    fn from_ref(deps: &T) -> Self {
        deps.clone()
    }
}

/// A dependency parameter of a tool: `db: Dep<Db>` gives the tool the `Db`
/// its agent's dependencies provide ([`FromRef`]), next to the arguments the
/// model sends. It is not part of the tool's JSON Schema.
///
/// The tool keeps the part it was built with and passes a clone of it to
/// each call (as axum does with `State`), so `T` is usually cheap to clone:
/// an `Arc`, a pool handle, a client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Dep<T>(pub T);

impl<T> Dep<T> {
    /// The dependency.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for Dep<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Dep<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}
