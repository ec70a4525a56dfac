//! Group `chain`: the cost of the layers themselves. The hooks (async
//! `fn`s and named futures), the hand-written function doing the same work,
//! and the cases.

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::task::{Context, Poll};

use hookwire::{
    Handler, Hook, Next, Outcome, Tool, ToolArgs, ToolContext, ToolSource, chain,
    hooks::CatchPanics,
};

use super::boxed::{BoxedChain, DynCount, DynHook, DynTyped};
use super::chain_fixtures::{AddOne, AddOneArgs, Noop};
use super::tools::Typed;
use super::{Mode, ready, result_text};

#[inline(always)]
pub(super) fn bump(counter: &AtomicU64) {
    counter.store(counter.load(Relaxed).wrapping_add(1), Relaxed);
}

/// Bumps its counter before and after `next`.
#[derive(Default)]
pub(super) struct Count(AtomicU64);

impl Hook for Count {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        bump(&self.0);
        let outcome = next.run(cx, args).await;
        bump(&self.0);
        outcome
    }
}

/// `Count` with a hand-written future instead of an `async fn`: bumps as
/// the call starts, and again when the inner future is ready.
#[derive(Default)]
struct CountPoll(AtomicU64);

pin_project_lite::pin_project! {
    struct AfterBump<'a, F> {
        #[pin]
        inner: F,
        counter: &'a AtomicU64,
    }
}

impl<F: Future<Output = Outcome>> Future for AfterBump<'_, F> {
    type Output = Outcome;
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.project();
        match this.inner.poll(cx) {
            Poll::Ready(outcome) => {
                bump(this.counter);
                Poll::Ready(outcome)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Hook for CountPoll {
    #[inline(always)]
    fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> impl Future<Output = Outcome> + Send {
        bump(&self.0);
        AfterBump {
            inner: next.run(cx, args),
            counter: &self.0,
        }
    }
}

/// `Noop` without an `async fn`: hands the call on, returning the inner
/// future itself.
struct NoopPoll;

impl Hook for NoopPoll {
    #[inline(always)]
    fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> impl Future<Output = Outcome> + Send {
        next.run(cx, args)
    }
}

/// `chain!` with the same hook expression 16 times.
macro_rules! chain16 {
    ($h:expr => $inner:expr) => {
        chain!($h, $h, $h, $h, $h, $h, $h, $h, $h, $h, $h, $h, $h, $h, $h, $h => $inner)
    };
}

/// The hand-written equivalent of 16 `Count` hooks around the tool.
struct Inline {
    counters: [AtomicU64; 16],
    tool: AddOne,
}

impl Inline {
    async fn call(&self, cx: &ToolContext) -> Outcome {
        for counter in &self.counters {
            bump(counter);
        }
        let outcome = self.tool.call(cx, AddOneArgs { x: black_box(41) }).await;
        for counter in self.counters.iter().rev() {
            bump(counter);
        }
        outcome
    }
}

/// The arguments the `chain` group passes along: an empty argument text, as a
/// model sends it (no allocation, and the hooks there never read it).
fn no_args() -> ToolArgs {
    ToolArgs::from_json(String::new())
}

fn context() -> ToolContext {
    ToolContext::new("add_one", ToolSource::Function, "call_0001")
}

pub(super) fn chain_cases(mode: &mut Mode<'_>) {
    let mut cx = context();

    // Check once that every case computes the same thing.
    let expected = "42";
    let check = |outcome: Outcome| assert_eq!(result_text(outcome), expected);

    check(ready(AddOne.call(&cx, AddOneArgs { x: 41 })));
    mode.case("chain/direct", || {
        ready(AddOne.call(&cx, AddOneArgs { x: black_box(41) }))
    });

    let root = CatchPanics(Typed(AddOne));
    check(ready(root.call(&mut cx, ToolArgs::empty())));
    mode.case("chain/root", || {
        ready(root.call(&mut cx, black_box(no_args())))
    });

    let noop_1 = CatchPanics(chain!(Noop => Typed(AddOne)));
    check(ready(noop_1.call(&mut cx, ToolArgs::empty())));
    mode.case("chain/noop_1", || {
        ready(noop_1.call(&mut cx, black_box(no_args())))
    });

    let noop_4 = CatchPanics(chain!(Noop, Noop, Noop, Noop => Typed(AddOne)));
    check(ready(noop_4.call(&mut cx, ToolArgs::empty())));
    mode.case("chain/noop_4", || {
        ready(noop_4.call(&mut cx, black_box(no_args())))
    });

    let noop_16 = CatchPanics(chain16!(Noop => Typed(AddOne)));
    check(ready(noop_16.call(&mut cx, ToolArgs::empty())));
    mode.case("chain/noop_16", || {
        ready(noop_16.call(&mut cx, black_box(no_args())))
    });

    let inline = Inline {
        counters: Default::default(),
        tool: AddOne,
    };
    check(ready(inline.call(&cx)));
    mode.case("chain/count16_inline", || ready(inline.call(&cx)));

    let count_16 = CatchPanics(chain16!(Count::default() => Typed(AddOne)));
    check(ready(count_16.call(&mut cx, ToolArgs::empty())));
    mode.case("chain/count16_hookwire", || {
        ready(count_16.call(&mut cx, black_box(no_args())))
    });

    let noop_poll = CatchPanics(chain16!(NoopPoll => Typed(AddOne)));
    check(ready(noop_poll.call(&mut cx, ToolArgs::empty())));
    mode.case("chain/noop16_poll", || {
        ready(noop_poll.call(&mut cx, black_box(no_args())))
    });

    let count_poll = CatchPanics(chain16!(CountPoll::default() => Typed(AddOne)));
    check(ready(count_poll.call(&mut cx, ToolArgs::empty())));
    mode.case("chain/count16_poll", || {
        ready(count_poll.call(&mut cx, black_box(no_args())))
    });

    let boxed = BoxedChain {
        hooks: (0..16)
            .map(|_| Arc::new(DynCount::default()) as Arc<dyn DynHook>)
            .collect(),
        tool: Arc::new(DynTyped(AddOne)),
    };
    check(ready(boxed.call(&mut cx, ToolArgs::empty())));
    mode.case("chain/count16_boxed", || {
        ready(boxed.call(&mut cx, black_box(no_args())))
    });

    // The counting hooks and the hand-written bumps ran.
    assert!(count_16.0.hook().0.load(Relaxed) >= 2);
    assert!(count_poll.0.hook().0.load(Relaxed) >= 2);
    assert!(inline.counters[0].load(Relaxed) >= 2);
}
