//! Slots: how generated code holds the hooks a user lists, so that a path
//! that is not a hook is one error, on that path, and nowhere else.
//!
//! For each hook it lists (`tool_hooks = [audit]`, a tool entry's `hooks`,
//! `#[tool(tool_hooks = [..])]`, `hooks = [..]` of lifecycle hooks), generated
//! code declares a marker type and implements [`Slot`] for it, naming the
//! user's type as [`Slot::Hook`], and the kind trait ([`AroundSlot`],
//! [`PreSlot`], [`PostSlot`]; the agent layer adds lifecycle hooks), whose
//! bound is the check.
//! Chains hold [`Slotted<Marker>`], which implements the hook traits
//! generically, from the kind trait's bound. So:
//!
//! * a path that is not a hook fails the kind trait's bound, at the marker's
//!   impl, spanned on the path: one error;
//! * nothing else names the user's type with a requirement: the agent's
//!   structs, `new`, its `Agent` impl and the code that runs it hold
//!   whatever the path is, and add no error. (A `where` bound on them would
//!   be checked again at every use: `Calc::new()`, `Runner::new(..)`.)
//!
//! Building goes through [`Slot::build`], whose body generated code writes
//! with [`Build`]: a hook is built from the agent's dependencies
//! ([`BuildHook`]) or, for a lifecycle hook, with `Default`, and a type that
//! is not a hook of the kind at all is not asked to be buildable, so that it
//! gets the one error above rather than a second one about `Default`.
//!
//! The agent layer (`hookwire::declare`) adds the slots of lifecycle hooks
//! and child agents on the same pattern.
//!
//! `Slotted` is a newtype whose methods forward to what it holds: it costs
//! nothing at run time.

use std::marker::PhantomData;

use crate::deps::BuildHook;
use crate::{
    Decision, Handler, Hook, HookError, Next, Outcome, PostHook, PreHook, ToolArgs, ToolContext,
};

/// A hook as a generated agent or tool holds it: generated code implements
/// it for one marker type per listed hook.
pub trait Slot: 'static {
    /// What the hook is built from: the agent's dependencies, or `()`.
    type Deps;
    /// The user's hook type, as written.
    type Hook;

    /// Builds the hook.
    fn build(deps: &Self::Deps) -> Self::Hook;
}

/// A slot that holds an around hook; the bound is the check.
pub trait AroundSlot: Slot<Hook: Hook> {}

/// A slot that holds a pre hook.
pub trait PreSlot: Slot<Hook: PreHook> {}

/// A slot that holds a post hook.
pub trait PostSlot: Slot<Hook: PostHook> {}

/// The hook of slot `M`, as a chain holds it. It implements the hook trait
/// of `M`'s kind by forwarding to the hook.
pub struct Slotted<M: Slot>(M::Hook);

impl<M: Slot> Slotted<M> {
    /// Builds the hook of slot `M`.
    #[inline]
    pub fn new(deps: &M::Deps) -> Self {
        Self(M::build(deps))
    }

    /// The hook it holds (what a slot kind of a layer above forwards to).
    #[inline]
    pub fn hook(&self) -> &M::Hook {
        &self.0
    }
}

impl<M: Slot> std::fmt::Debug for Slotted<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Slotted")
            .field(&std::any::type_name::<M::Hook>())
            .finish()
    }
}

#[diagnostic::do_not_recommend]
impl<M: AroundSlot> Hook for Slotted<M> {
    // An agent's policy reads it from the chain's type (`Slotted<M>`), as
    // the chain does: a path that is not a hook stays one error, at the
    // slot's kind impl.
    const REWRITES: bool = <M::Hook as Hook>::REWRITES;
    const PHASE: hookwire_spec::HookKind = <M::Hook as Hook>::PHASE;

    #[inline]
    fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> impl Future<Output = Outcome> + Send {
        self.0.around(cx, args, next)
    }

    fn name(&self) -> &'static str {
        self.0.name()
    }
}

#[diagnostic::do_not_recommend]
impl<M: PreSlot> PreHook for Slotted<M> {
    const REWRITES: bool = <M::Hook as PreHook>::REWRITES;

    #[inline]
    fn before(
        &self,
        cx: &mut ToolContext,
        args: &mut ToolArgs,
    ) -> impl Future<Output = Result<Decision, HookError>> + Send {
        self.0.before(cx, args)
    }

    fn name(&self) -> &'static str {
        self.0.name()
    }
}

#[diagnostic::do_not_recommend]
impl<M: PostSlot> PostHook for Slotted<M> {
    #[inline]
    fn after(
        &self,
        cx: &mut ToolContext,
        outcome: &mut Outcome,
    ) -> impl Future<Output = Result<(), HookError>> + Send {
        self.0.after(cx, outcome)
    }

    fn name(&self) -> &'static str {
        self.0.name()
    }
}

/// The kinds of hook a slot can hold, for [`Build`].
pub mod kind {
    /// An around hook ([`Hook`](crate::Hook)).
    #[derive(Debug)]
    pub enum Around {}
    /// A pre hook ([`PreHook`](crate::PreHook)).
    #[derive(Debug)]
    pub enum Pre {}
    /// A post hook ([`PostHook`](crate::PostHook)).
    #[derive(Debug)]
    pub enum Post {}
}

/// Builds a hook of type `H` and kind `K` in a [`Slot::build`] body, with
/// method resolution choosing how (dtolnay's autoref specialization, on the
/// concrete types generated code names):
///
/// * `H` is a hook of kind `K`: with [`BuildHook`] (or `Default`, for
///   lifecycle hooks), and a hook that cannot be built is an error here;
/// * `H` is not: the kind trait's bound already fails, and this compiles
///   without a second error. That branch never runs: the crate does not
///   compile.
///
/// ```ignore
/// (&Build::<H, Deps, kind::Around>::new()).build(deps)
/// ```
pub struct Build<H, D, K>(PhantomData<Types<H, D, K>>);

/// What [`Build`] is about, without owning any of it.
type Types<H, D, K> = fn() -> (H, D, K);

impl<H, D, K> Build<H, D, K> {
    /// The builder.
    #[inline]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

impl<H, D, K> std::fmt::Debug for Build<H, D, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Build")
    }
}

/// The branch of [`Build`] for a hook of the slot's kind.
pub trait BuildKind<H, D> {
    /// Builds the hook from the dependencies.
    fn build(&self, deps: &D) -> H
    where
        H: BuildHook<D>;
}

impl<H: Hook, D> BuildKind<H, D> for Build<H, D, kind::Around> {
    #[inline]
    fn build(&self, deps: &D) -> H
    where
        H: BuildHook<D>,
    {
        H::build_hook(deps)
    }
}

impl<H: PreHook, D> BuildKind<H, D> for Build<H, D, kind::Pre> {
    #[inline]
    fn build(&self, deps: &D) -> H
    where
        H: BuildHook<D>,
    {
        H::build_hook(deps)
    }
}

impl<H: PostHook, D> BuildKind<H, D> for Build<H, D, kind::Post> {
    #[inline]
    fn build(&self, deps: &D) -> H
    where
        H: BuildHook<D>,
    {
        H::build_hook(deps)
    }
}

/// The branch of [`Build`] for a type that is not a hook of the slot's
/// kind: its slot's bound is the error; this adds none, and never runs.
pub trait BuildNotAHook<H, D> {
    /// Never called at run time: the crate that asks for it does not
    /// compile.
    fn build(&self, deps: &D) -> H;
}

impl<H, D, K> BuildNotAHook<H, D> for &Build<H, D, K> {
    fn build(&self, _: &D) -> H {
        unreachable!("a slot whose type is not a hook of its kind does not compile")
    }
}
