//! Panics: attributed by every layer, caught once at the root of a call.

use std::any::Any;
use std::cell::Cell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{Handler, Hook};
use crate::call::{Outcome, ToolArgs};
use crate::context::ToolContext;
use crate::error::{ToolError, panic_message};

/// Who a panic is attributed to, as the guards on the unwinding stack record it.
#[derive(Clone, Copy)]
enum Culprit {
    /// A hook, by name.
    Hook(&'static str),
    /// The tool; its name is in [`TOOL_NAME`].
    Tool,
}

thread_local! {
    /// The innermost hook or tool a panic unwound through, set by the first
    /// guard that drops while unwinding, read and cleared by the catch that
    /// stops the panic ([`CatchPanics`], or a [`Guarded`](crate::Guarded)
    /// hook's own catch). `Copy` and without a destructor, so clearing it on
    /// every call is one store.
    static CULPRIT: Cell<Option<Culprit>> = const { Cell::new(None) };
    /// The name of the tool when [`CULPRIT`] is [`Culprit::Tool`] (only written
    /// while unwinding).
    static TOOL_NAME: Cell<Option<String>> = const { Cell::new(None) };
}

/// Records `culprit` (and, for a tool, its name if known) unless an inner
/// frame already did. Runs only while unwinding, so it must not panic.
#[cold]
#[inline(never)]
fn record(culprit: Culprit, tool: impl FnOnce() -> Option<String>) {
    let _ = CULPRIT.try_with(|slot| {
        if slot.get().is_none() {
            if let Culprit::Tool = culprit {
                let _ = TOOL_NAME.try_with(|name| name.set(tool()));
            }
            slot.set(Some(culprit));
        }
    });
}

/// Whether a guard recorded the panic being caught: it came from inside a
/// layer or a tool, not from the code that caught it.
#[inline]
pub(crate) fn panic_is_attributed() -> bool {
    CULPRIT
        .try_with(|slot| slot.get().is_some())
        .unwrap_or(false)
}

/// Takes the recorded culprit and builds the error of a caught panic;
/// `fallback_tool` names the tool if nothing was recorded.
#[cold]
#[inline(never)]
fn panic_error(payload: &(dyn Any + Send), fallback_tool: &str) -> ToolError {
    let message = panic_message(payload);
    match CULPRIT.try_with(Cell::take).ok().flatten() {
        Some(Culprit::Hook(hook)) => ToolError::HookFailed {
            hook: hook.into(),
            message,
        },
        Some(Culprit::Tool) => {
            let tool = TOOL_NAME.try_with(Cell::take).ok().flatten();
            ToolError::tool_message(tool.as_deref().unwrap_or(fallback_tool), message, false)
        }
        None => ToolError::tool_message(fallback_tool, message, false),
    }
}

/// What a guard records when a panic unwinds through it.
pub(crate) trait Attribute {
    /// Records this frame as the culprit, unless an inner one already is.
    fn record(&self);
}

/// The guard of a [`Hooked`]: attributes a panic to the hook.
pub(crate) struct HookCulprit<'a, H>(pub(crate) &'a H);

impl<H: Hook> Attribute for HookCulprit<'_, H> {
    #[inline]
    fn record(&self) {
        record(Culprit::Hook(self.0.name()), || None);
    }
}

/// The guard of a [`ToolHandler`](crate::ToolHandler): attributes a panic to
/// the tool, by the name it had when the call started (no user code runs
/// while unwinding).
pub(crate) struct ToolCulprit<'a>(pub(crate) &'a str);

impl Attribute for ToolCulprit<'_> {
    #[inline]
    fn record(&self) {
        record(Culprit::Tool, || Some(self.0.to_owned()));
    }
}

/// Lives on the stack while a future is polled; dropped only if the poll
/// unwinds (on the normal path it is forgotten, which costs nothing).
struct Guard<'g, A: Attribute>(&'g A);

impl<A: Attribute> Drop for Guard<'_, A> {
    #[inline]
    fn drop(&mut self) {
        self.0.record();
    }
}

/// Runs `f`, attributing a panic in it to `culprit`.
#[inline(always)]
pub(crate) fn attributed<A: Attribute, R>(culprit: &A, f: impl FnOnce() -> R) -> R {
    let guard = Guard(culprit);
    let value = f();
    std::mem::forget(guard);
    value
}

pin_project_lite::pin_project! {
    /// A future whose panics are attributed to `culprit` (see [`Hooked`]);
    /// they are not caught here.
    pub(crate) struct Attributed<F, A> {
        #[pin]
        future: F,
        culprit: A,
    }
}

impl<F: Future, A: Attribute> Attributed<F, A> {
    /// `future`, attributing its panics to `culprit`.
    #[inline(always)]
    pub(crate) fn new(future: F, culprit: A) -> Self {
        Self { future, culprit }
    }
}

impl<F: Future, A: Attribute> Future for Attributed<F, A> {
    type Output = F::Output;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        attributed(&*this.culprit, || this.future.poll(cx))
    }
}

pin_project_lite::pin_project! {
    /// The root of a call: a panic while `future` is polled becomes an error
    /// naming the culprit the guards recorded, or the tool `fallback`.
    pub(crate) struct CatchRoot<'a, F> {
        #[pin]
        future: F,
        fallback: &'a str,
    }
}

impl<'a, F: Future<Output = Outcome>> CatchRoot<'a, F> {
    /// `future` as the root of a call of the tool named `fallback`.
    #[inline(always)]
    pub(crate) fn new(future: F, fallback: &'a str) -> Self {
        Self { future, fallback }
    }
}

impl<F: Future<Output = Outcome>> Future for CatchRoot<'_, F> {
    type Output = Outcome;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.project();
        let future = this.future;
        // A panic caught by someone else (a task's catch, a user's) may have
        // left a stale culprit behind: start clean.
        CULPRIT.set(None);
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(panic_error(&*payload, this.fallback))),
        }
    }
}

/// Runs one call through `handler` as the root of the call: a panic anywhere
/// inside ends the call with an error instead of unwinding further.
///
/// The error names what panicked: [`ToolError::HookFailed`] with the
/// innermost hook the panic unwound through, or [`ToolError::ToolFailed`] if
/// the tool panicked. (A panic that nothing inside attributed, from a
/// hand-written innermost [`Handler`] with no hook around it, is a
/// `ToolFailed` for the context's tool if that is a `&'static str`.) This is
/// the one `catch_unwind` of a call; every tool set
/// ([`Router`](crate::Router), the tool sets that `#[agent]` and `cardgen`
/// generate, MCP tool sets) runs each chain through it. Call a chain you
/// built by hand through it (or through [`CatchPanics`]) too:
/// [`Handler::call`] on a bare chain lets a panic unwind to the caller.
///
/// ```
/// use hookwire::{chain, FnTool, Handler, Hook, Next, Outcome, ToolArgs, ToolContext, ToolHandler, ToolSource, hooks::catch_panics};
///
/// struct Buggy;
/// impl Hook for Buggy {
///     async fn around<N: Handler>(&self, _: &mut ToolContext, _: ToolArgs, _: Next<'_, N>) -> Outcome {
///         panic!("oops")
///     }
///     fn name(&self) -> &'static str { "buggy" }
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct A {}
/// let tool = FnTool::new("t", "A tool.", |_: A| async { "ok" });
/// let chain = chain!(Buggy => ToolHandler(tool));
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut cx = ToolContext::new("t", ToolSource::Function, "call-1");
/// let error = catch_panics(&chain, &mut cx, ToolArgs::empty()).await.unwrap_err();
/// assert_eq!(error.to_string(), "hook `buggy` failed: panicked: oops");
/// # });
/// ```
#[inline]
pub fn catch_panics<H: Handler + ?Sized>(
    handler: &H,
    cx: &mut ToolContext,
    args: ToolArgs,
) -> impl Future<Output = Outcome> + Send {
    let fallback = cx.static_tool().unwrap_or("");
    CatchRoot::new(handler.call(cx, args), fallback)
}

/// A handler run as the root of a call: [`catch_panics`] as a [`Handler`].
///
/// ```
/// # use hookwire::{chain, Hooked, hooks::CatchPanics};
/// # struct A; struct T;
/// let root: CatchPanics<Hooked<A, T>> = CatchPanics(chain!(A => T));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct CatchPanics<H>(pub H);

impl<H: Handler> Handler for CatchPanics<H> {
    #[inline]
    fn call(&self, cx: &mut ToolContext, args: ToolArgs) -> impl Future<Output = Outcome> + Send {
        catch_panics(&self.0, cx, args)
    }

    #[inline]
    fn tool_view(&self) -> Option<crate::ToolView> {
        self.0.tool_view()
    }
}

/// Builds a chain from hooks in declared order (outermost first) around a
/// handler.
///
/// ```
/// # use hookwire::{chain, Hooked};
/// # struct A; struct B; struct T;
/// let c = chain!(A, B => T);
/// let _: Hooked<A, Hooked<B, T>> = c;
/// ```
#[macro_export]
macro_rules! chain {
    (=> $handler:expr $(,)?) => { $handler };
    ($hook:expr $(, $rest:expr)* => $handler:expr $(,)?) => {
        $crate::Hooked::new($hook, $crate::chain!($($rest),* => $handler))
    };
}
