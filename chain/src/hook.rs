//! The one primitive: around-hooks, and chains of them as nested types.

use std::future::Future;
use std::pin::Pin;

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;

mod panics;
#[cfg(test)]
mod tests;

use panics::{Attributed, HookCulprit};
pub use panics::{CatchPanics, catch_panics};
pub(crate) use panics::{CatchRoot, ToolCulprit, attributed, panic_is_attributed};

/// Anything that turns a call into an outcome: a tool, or a tool wrapped in
/// hooks. A chain is a `Handler` built of nested [`Hooked`]s, one concrete
/// type per chain, so every call through it is statically dispatched.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire handler (a tool or a chain of hooks around one)",
    note = "wrap a `Tool` in `ToolHandler`, and hooks around it with `Hooked` or `hookwire::chain!`"
)]
pub trait Handler: Send + Sync {
    /// Runs the call.
    ///
    /// Do the work in the returned future: code that runs in `call` itself,
    /// as the future is made, runs before the root of the call
    /// ([`catch_panics`]) polls anything, so a panic there is not caught
    /// by it. (`ToolHandler` parses the arguments in `call` and catches a
    /// panicking `Deserialize` there itself.)
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send;

    /// What an approval gate in front of this handler knows of the tool
    /// it ends in ([`ToolView`](crate::ToolView): the
    /// approver's metadata, the type edited arguments must fit). A layer
    /// around another handler answers with the inner one's;
    /// [`ToolHandler`](crate::ToolHandler) with its tool's. `None` (the
    /// default) shows no metadata and refuses edited arguments.
    #[inline]
    fn tool_view(&self) -> Option<crate::ToolView> {
        None
    }
}

impl<T: Handler + ?Sized> Handler for &T {
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        (**self).call(cx, args)
    }

    #[inline]
    fn tool_view(&self) -> Option<crate::ToolView> {
        (**self).tool_view()
    }
}

/// The rest of the chain, as a hook sees it: calling [`run`](Next::run)
/// runs every inner hook and the tool. It is `Copy`, so a hook may call it
/// more than once (retry) or not at all (short-circuit).
pub struct Next<'a, N: ?Sized> {
    inner: &'a N,
}

impl<N: ?Sized> Clone for Next<'_, N> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<N: ?Sized> Copy for Next<'_, N> {}

impl<N: ?Sized> std::fmt::Debug for Next<'_, N> {
    #[inline]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Next")
    }
}

impl<'a, N: Handler + ?Sized> Next<'a, N> {
    /// The continuation that runs `inner`.
    #[inline]
    pub fn new(inner: &'a N) -> Self {
        Self { inner }
    }

    /// Runs the rest of the chain with (possibly rewritten) arguments.
    #[inline]
    pub fn run(self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        self.inner.call(cx, args)
    }

    /// What an approval gate here knows of the tool the rest of the chain
    /// ends in ([`Handler::tool_view`]).
    #[inline]
    pub fn tool_view(&self) -> Option<crate::ToolView> {
        self.inner.tool_view()
    }
}

/// An around-hook: code that runs around every call of the tools it
/// applies to.
///
/// It can act **before** the call (inspect or rewrite `args`, fill
/// `cx.extensions_mut()`), **instead** of it (return without calling
/// `next`), and **after** it (rewrite or replace the outcome, recover from
/// an error). `next` is generic, so a chain of hooks is one concrete type and
/// a call through it allocates nothing.
///
/// Most hooks are written with `#[hookwire::hook]`; a hand-written one
/// looks like this:
///
/// ```
/// use hookwire::{Handler, Hook, Next, Outcome, ToolArgs, ToolContext};
///
/// struct Tag;
///
/// impl Hook for Tag {
///     async fn around<N: Handler>(
///         &self,
///         cx: &mut ToolContext,
///         args: ToolArgs,
///         next: Next<'_, N>,
///     ) -> Outcome {
///         let mut outcome = next.run(cx, args).await;
///         if let Ok(result) = &mut outcome {
///             result.append_text(" [tagged]");
///         }
///         outcome
///     }
/// }
/// ```
///
/// # Hot hooks without an `async fn`
///
/// Each `async fn` hook is a state machine that moves the arguments, the
/// context and `next` into the next hook's future: about 20 instructions
/// per hook and call. For a hook on the hot path that does little work,
/// `around` can instead be a plain function that returns a named future,
/// as tower's middleware does: 16 such counting hooks cost markedly less
/// than 16 `async fn`s doing the same bumps (`cargo bench -p hookwire
/// --bench chain`; the figures are in the repository's BENCHMARKS.md). What
/// `around` does before
/// returning the future runs as the call starts; for the outermost hook that
/// is before the root of the call ([`catch_panics`]) polls anything, so
/// keep it to code that cannot panic.
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::task::{Context, Poll};
/// use hookwire::{chain, FnTool, Handler, Hook, Next, Outcome, ToolArgs, ToolContext, ToolHandler, ToolSource, hooks::catch_panics};
///
/// /// Counts calls as they start and as they end.
/// #[derive(Default)]
/// struct Calls { started: AtomicU64, ended: AtomicU64 }
///
/// pin_project_lite::pin_project! {
///     /// The rest of the chain, then one more ended call.
///     struct Ended<'a, F> { #[pin] inner: F, calls: &'a Calls }
/// }
///
/// impl<F: Future<Output = Outcome>> Future for Ended<'_, F> {
///     type Output = Outcome;
///     fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
///         let this = self.project();
///         let outcome = std::task::ready!(this.inner.poll(cx));
///         this.calls.ended.fetch_add(1, Ordering::Relaxed);
///         Poll::Ready(outcome)
///     }
/// }
///
/// impl Hook for Calls {
///     fn around<N: Handler>(
///         &self,
///         cx: &mut ToolContext,
///         args: ToolArgs,
///         next: Next<'_, N>,
///     ) -> impl Future<Output = Outcome> + Send {
///         self.started.fetch_add(1, Ordering::Relaxed);
///         Ended { inner: next.run(cx, args), calls: self }
///     }
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct A { x: i64 }
/// let tool = FnTool::new("inc", "Adds one.", |a: A| async move { hookwire::Json(a.x + 1) });
/// let chain = chain!(Calls::default() => ToolHandler(tool));
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut cx = ToolContext::new("inc", ToolSource::Function, "call-1");
/// let outcome = catch_panics(&chain, &mut cx, ToolArgs::from_json(r#"{"x":41}"#)).await;
/// assert_eq!(outcome.unwrap().text_content(), "42");
/// let calls = chain.hook();
/// assert_eq!((calls.started.load(Ordering::Relaxed), calls.ended.load(Ordering::Relaxed)), (1, 1));
/// # });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire hook",
    label = "not a hook",
    note = "a hook is an `async fn(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome` (or a pre/post hook) marked `#[hookwire::hook]`, or a type that implements `hookwire::Hook`"
)]
pub trait Hook: Send + Sync {
    /// Runs around the rest of the chain.
    fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> impl Future<Output = Outcome> + Send;

    /// Whether it may rewrite the call's arguments before the rest of the
    /// chain sees them: an agent's policy shows it, and the coverage rule
    /// `rewrites_ordered` reads it. An around hook may (it passes on the
    /// `args` it likes), so the default is `true`; a hook that passes its
    /// arguments on as it received them says `false`. `#[hookwire::hook]`
    /// sets it from the signature (a pre hook taking `&ArgsOf<tool>` and a
    /// post hook do not rewrite).
    const REWRITES: bool = true;

    /// How it acts on a call, as an agent's policy shows it (`"phase"`):
    /// around the rest of the chain (the default), before it (`Pre`), or
    /// after it (`Post`). `#[hookwire::hook]` sets it from the signature.
    const PHASE: hookwire_spec::HookKind = hookwire_spec::HookKind::Around;

    /// The hook's name, used in traces and error messages.
    ///
    /// It is also read while a panic unwinds through the hook (to name it in
    /// the error), when a second panic would abort the process: it must not
    /// panic.
    #[inline]
    fn name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// A shared hook is a hook: generated agents keep their agent-level hooks
/// once and lend them to the chains of tools discovered at run time.
#[diagnostic::do_not_recommend]
impl<H: Hook + ?Sized> Hook for &H {
    const REWRITES: bool = H::REWRITES;
    const PHASE: hookwire_spec::HookKind = H::PHASE;

    #[inline]
    fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> impl Future<Output = Outcome> + Send {
        (**self).around(cx, args, next)
    }

    #[inline]
    fn name(&self) -> &'static str {
        (**self).name()
    }
}

/// One hook around an inner handler: the building block of every chain.
///
/// A `Hooked` does not catch panics itself: that would cost a `catch_unwind`
/// per hook on every call. It only *attributes* them: while the hook runs, a
/// guard on the stack notes the hook's name if a panic unwinds through it,
/// and the root of the call ([`CatchPanics`], which every tool set puts
/// around every chain) turns the panic into [`ToolError::HookFailed`](crate::ToolError::HookFailed) naming
/// the hook. Hooks outside the panicking one do not see an `Err` from `next`;
/// the call just ends with that error. Wrap a hook in
/// [`Guarded`](crate::Guarded) for `fail_open`, a timeout, or to let outer
/// hooks see its failure as an error. (A hook that catches a panic of `next`
/// with a `catch_unwind` of its own leaves that panic's attribution behind
/// until the next call's root: a second panic in the same call is then
/// named after the first one's culprit. `Guarded` clears it.)
#[derive(Debug, Clone, Default)]
pub struct Hooked<H, N> {
    hook: H,
    inner: N,
}

impl<H, N> Hooked<H, N> {
    /// `hook` around `inner`.
    #[inline]
    pub const fn new(hook: H, inner: N) -> Self {
        Self { hook, inner }
    }

    /// The hook.
    #[inline]
    pub fn hook(&self) -> &H {
        &self.hook
    }

    /// The inner handler.
    #[inline]
    pub fn inner(&self) -> &N {
        &self.inner
    }
}

/// A handler whose calls are boxed: `inner`'s future behind one
/// allocation per call.
///
/// A chain is one nested type, and so is its future: rustc's layout
/// queries go some six levels deeper per `async` hook, and a tool behind
/// more than about twenty hooks exceeds the default recursion limit. The
/// code `#[agent]` and `cardgen` generate puts one `Boxed` between every
/// twelve agent-level hooks (and every eight of a tool's own) on the
/// longer chains only, so those compile at any length; a chain of up to
/// twelve agent-level hooks allocates nothing per call.
#[derive(Debug, Clone, Copy, Default)]
pub struct Boxed<N> {
    inner: N,
}

impl<N> Boxed<N> {
    /// `inner`, with its calls boxed.
    #[inline]
    pub const fn new(inner: N) -> Self {
        Self { inner }
    }

    /// The inner handler.
    #[inline]
    pub fn inner(&self) -> &N {
        &self.inner
    }
}

impl<N: Handler> Handler for Boxed<N> {
    async fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> Outcome {
        // This future holds the box only: its layout does not reach `N`'s.
        let call: Pin<Box<dyn Future<Output = Outcome> + Send + '_>> =
            Box::pin(self.inner.call(cx, args));
        call.await
    }

    #[inline]
    fn tool_view(&self) -> Option<crate::ToolView> {
        self.inner.tool_view()
    }
}

impl<H: Hook, N: Handler> Handler for Hooked<H, N> {
    #[inline]
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        Attributed::new(
            self.hook.around(cx, args, Next::new(&self.inner)),
            HookCulprit(&self.hook),
        )
    }

    #[inline]
    fn tool_view(&self) -> Option<crate::ToolView> {
        self.inner.tool_view()
    }
}
