//! The one primitive: around-hooks, and chains of them as nested types.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::error::{ToolError, panic_message};

/// Anything that turns a call into an outcome: a tool, or a tool wrapped in
/// hooks. A chain is a `Handler` built of nested [`Layer`]s, one concrete
/// type per chain, so every call through it is statically dispatched.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hookwire handler (a tool or a chain of hooks around one)",
    note = "wrap a `Tool` in `ToolHandler`, and hooks around it with `Layer` or `hookwire::chain!`"
)]
pub trait Handler: Send + Sync {
    /// Runs the call.
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send;
}

impl<T: Handler + ?Sized> Handler for &T {
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        (**self).call(cx, args)
    }
}

/// The rest of the chain, as a hook sees it: calling [`run`](Next::run)
/// runs every inner hook and the tool. It is `Copy`, so a hook may call it
/// more than once (retry) or not at all (short-circuit).
pub struct Next<'a, N: ?Sized> {
    inner: &'a N,
}

impl<N: ?Sized> Clone for Next<'_, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<N: ?Sized> Copy for Next<'_, N> {}

impl<N: ?Sized> std::fmt::Debug for Next<'_, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Next")
    }
}

impl<'a, N: Handler + ?Sized> Next<'a, N> {
    /// The continuation that runs `inner`.
    pub fn new(inner: &'a N) -> Self {
        Self { inner }
    }

    /// Runs the rest of the chain with (possibly rewritten) arguments.
    #[inline]
    pub fn run(self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        self.inner.call(cx, args)
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

    /// The hook's name, used in traces and error messages.
    fn name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

/// One hook around an inner handler: the building block of every chain.
///
/// A panic in the hook is caught here and becomes
/// [`ToolError::HookFailed`] (the `fail_closed` policy); wrap the hook in
/// [`Guarded`](crate::Guarded) for `fail_open` or a timeout.
#[derive(Debug, Clone, Default)]
pub struct Layer<H, N> {
    hook: H,
    inner: N,
}

impl<H, N> Layer<H, N> {
    /// `hook` around `inner`.
    pub const fn new(hook: H, inner: N) -> Self {
        Self { hook, inner }
    }

    /// The hook.
    pub fn hook(&self) -> &H {
        &self.hook
    }

    /// The inner handler.
    pub fn inner(&self) -> &N {
        &self.inner
    }
}

impl<H: Hook, N: Handler> Handler for Layer<H, N> {
    #[inline]
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        let hook = &self.hook;
        CatchPanic::new(
            hook.around(cx, args, Next::new(&self.inner)),
            move |message| ToolError::HookFailed {
                hook: hook.name().into(),
                message,
            },
        )
    }
}

pin_project_lite::pin_project! {
    /// A future with its panics caught: a panic while it is polled becomes
    /// the outcome `Err(on_panic(message))`.
    ///
    /// A named future rather than `catch_unwind().map(..)`: polling it is one
    /// `catch_unwind` around the inner poll, which inlines through a whole
    /// chain, and the outcome is not copied through combinator states.
    pub(crate) struct CatchPanic<F, E> {
        #[pin]
        future: F,
        on_panic: E,
    }
}

impl<F, E> CatchPanic<F, E>
where
    F: Future<Output = Outcome>,
    E: Fn(String) -> ToolError,
{
    /// `future`, with a panic turned into `Err(on_panic(message))`.
    pub(crate) fn new(future: F, on_panic: E) -> Self {
        Self { future, on_panic }
    }
}

impl<F, E> Future for CatchPanic<F, E>
where
    F: Future<Output = Outcome>,
    E: Fn(String) -> ToolError,
{
    type Output = Outcome;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.project();
        let future = this.future;
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(panicked(this.on_panic, payload))),
        }
    }
}

/// The error for a future that panicked; out of line, off the hot path.
#[cold]
#[inline(never)]
fn panicked<E: Fn(String) -> ToolError>(
    on_panic: &E,
    payload: Box<dyn std::any::Any + Send>,
) -> ToolError {
    on_panic(panic_message(&*payload))
}

/// Builds a chain from hooks in declared order (outermost first) around a
/// handler.
///
/// ```
/// # use hookwire::{chain, Layer};
/// # struct A; struct B; struct T;
/// let c = chain!(A, B => T);
/// let _: Layer<A, Layer<B, T>> = c;
/// ```
#[macro_export]
macro_rules! chain {
    (=> $handler:expr $(,)?) => { $handler };
    ($hook:expr $(, $rest:expr)* => $handler:expr $(,)?) => {
        $crate::Layer::new($hook, $crate::chain!($($rest),* => $handler))
    };
}
