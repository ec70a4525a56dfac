//! What a chain of hooks costs, as ratios taken in one run (BENCHMARKS.md).
//!
//! Reproduce (modest settings, so the shared 2-core machine is not hogged):
//!
//! ```text
//! cargo bench -p hookwire --bench chain -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! The run ends with a table of ratios against the targets, computed from
//! the estimates criterion wrote during *this* run (older estimates are
//! ignored). Cases:
//!
//! * group `chain`, the cost of the layers themselves:
//!   - `direct`: `Tool::call` of a small tool (`add_one`) on typed arguments;
//!   - `root`: the same call as the root of a call with no hook (what
//!     every chain below includes once: `CatchPanics` and the `ToolArgs`
//!     value, which the innermost handler drops unread);
//!   - `noop_1`, `noop_4`, `noop_16`: the same call through 1, 4 and 16
//!     around-hooks that only call `next` (target: 16 at most 2x `direct`);
//!     every chain here runs as the root of its call (`CatchPanics`, the one
//!     `catch_unwind` of a call, which every tool set puts around a chain),
//!     so the figures include it;
//!   - `count16_inline`: one hand-written function that bumps 16 counters,
//!     calls the tool, and bumps them again in reverse order;
//!   - `count16_hookwire`: the same work as 16 hooks, each bumping its own
//!     counter before and after `next` (target: at most 1.10x `count16_inline`);
//!   - `count16_boxed`: the same 16 hooks as a `Vec<Arc<dyn DynHook>>` chain of
//!     boxed futures, the design rig, rmcp and swiftide use, written here as the
//!     baseline (target: at least 5x `count16_hookwire`);
//!   - `noop16_poll`, `count16_poll`: the no-op and counting hooks written
//!     without an `async fn`, their `around` a plain function returning a
//!     named future (for information: what the layers cost without a state
//!     machine each; `noop16_poll` is the floor, the root of the call alone).
//! * group `e2e`, a call the way a model sends it: id, tool name and JSON
//!   argument text (owned strings, the id and name shared as `ToolCall` holds them, made outside the timed region) -> dispatch
//!   by name among three tools -> typed arguments (serde) -> the tool -> the
//!   result's JSON text:
//!   - `hand_written`: an async fn that matches the name, `serde_json::from_str`s
//!     the arguments, calls the same `add_one` and `serde_json::to_string`s its
//!     return value;
//!   - `generated_0_hooks`: the three tools as `#[hookwire::tool]`s in the
//!     tool set `#[hookwire::agent]` generates for them (the same emitter as
//!     `cardgen`: one `match` on the name for up to eight tools, each chain
//!     run through `catch_panics`), no hooks (target: at most 1.25x
//!     `hand_written`);
//!   - `generated_0_hooks_hashed`: the same three among nine tools, through
//!     the perfect-hash dispatch the emitter writes for more than eight;
//!   - `generated_4_hooks`: the three tools with a guarded (fail-open)
//!     around hook, a pre hook, a post hook and a counting around-hook on
//!     `add_one`, all `#[hookwire::hook]`s but the counter;
//!   - `hookwire_0_hooks`, `hookwire_4_hooks`: the same two through a
//!     hand-built `Router` (a linear list of routes, each an `async fn`);
//!   - `generated_reads_args`: the three generated tools, `add_one` behind
//!     one `#[hookwire::hook]` pre hook that reads its argument `x`.
//! * group `loop`, whole sessions of the agent loop (`Runner`) over the
//!   generated `e2e` agent (shared in an `Arc`, as a server shares one
//!   agent value), on a model that answers at once from a fixed answer:
//!   - `answer_only`: a new session, one prompt, a final answer (target:
//!     at most 8x `e2e/generated_0_hooks`, a bare dispatch);
//!   - `one_call`: a new session, one prompt, one `add_one` call, then the
//!     answer; `one_call` minus `answer_only` is the tool-call step
//!     (target: at most 8x the bare dispatch);
//!   - `answer_only_streamed`, `one_call_streamed`: the same sessions
//!     through `Runner::stream`, every event collected.
//!
//! Instruction counts, which the noise of a shared machine does not touch:
//! `HOOKWIRE_BENCH_LOOP=<group>/<case>:<iterations>` runs one case in a
//! plain loop instead of under criterion, so (with the bench binary that
//! `cargo bench -p hookwire --bench chain --no-run` prints)
//!
//! ```text
//! for n in 1000 2000; do HOOKWIRE_BENCH_LOOP=chain/noop_16:$n \
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/deps/chain-<hash>; done
//! ```
//!
//! gives the instructions of 1000 calls as the difference of the two totals
//! (`runtime/benches/instructions.sh <binary> [<group>/<case> ...]` does it)
//! (`e2e/input_only` is the cost of making and dropping an e2e input, to
//! subtract from the e2e cases, which make one per iteration in that mode).
//!
//! How futures are run: every future here completes on its first poll (no
//! tool waits on anything), so each iteration polls it once with a no-op
//! waker ([`ready`]). A `block_on` of a runtime would add the executor's
//! enter/exit and scheduling cost, the same constant on both sides of every
//! ratio, which would only dilute the ratios and hide the chain's cost.
//!
//! Fairness: both sides of each ratio do the same work. Inputs pass through
//! `black_box`, results are returned to criterion (which `black_box`es them),
//! counters are atomics bumped with a relaxed load and store (plain moves on
//! x86, which the compiler never merges or removes, and cheap enough that the
//! cost of the layers is not hidden behind `lock`ed instructions).

use std::future::Future;
use std::hint::black_box;

use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::task::{Context, Poll, Waker};
use std::time::SystemTime;

#[path = "chain_parts/boxed.rs"]
mod boxed;
#[path = "../tests/chain_fixtures/mod.rs"]
mod chain_fixtures;
#[path = "chain_parts/ratios.rs"]
mod ratios;
#[path = "chain_parts/tools.rs"]
mod tools;

use boxed::{BoxedChain, DynCount, DynHook, DynTyped};
use ratios::report;
use tools::{Echo, EchoArgs, Mul, MulArgs, Typed, echo, mul};

use chain_fixtures::{AddOne, AddOneArgs, Allow, Keep, Noop, add_one};
use criterion::{BatchSize, Criterion};
use hookwire::agent::Agent;
use hookwire::{
    CallScope, CatchPanics, FailurePolicy, Guarded, Handler, Hook, Next, Outcome, Post, Pre,
    Router, Tool, ToolArgs, ToolCall, ToolContext, ToolHandler, ToolSet, ToolSource, chain,
    into_result,
};

// ---------------------------------------------------------------------------
// Hooks.

#[inline(always)]
fn bump(counter: &AtomicU64) {
    counter.store(counter.load(Relaxed).wrapping_add(1), Relaxed);
}

/// Bumps its counter before and after `next`.
#[derive(Default)]
struct Count(AtomicU64);

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

// ---------------------------------------------------------------------------
// End to end.

/// The hand-written path: what a developer writes without a framework.
async fn hand_written(id: Arc<str>, name: Arc<str>, arguments: String) -> String {
    // The id would travel back with the result; hookwire's side drops its copy
    // inside the call too.
    drop(id);
    match &*name {
        "mul" => match serde_json::from_str::<MulArgs>(&arguments) {
            Ok(args) => to_json(&mul(args).await),
            Err(e) => format!("invalid arguments: {e}"),
        },
        "add_one" => match serde_json::from_str::<AddOneArgs>(&arguments) {
            Ok(args) => to_json(&add_one(args).await),
            Err(e) => format!("invalid arguments: {e}"),
        },
        "echo" => match serde_json::from_str::<EchoArgs>(&arguments) {
            Ok(args) => to_json(&echo(args).await),
            Err(e) => format!("invalid arguments: {e}"),
        },
        other => format!("unknown tool `{other}`"),
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| e.to_string())
}

/// The text the model reads, moved out of the result (no copy).
fn result_text(outcome: Outcome) -> String {
    into_result(outcome).into_text_content()
}

/// The e2e tool sets exactly as `#[hookwire::agent]` generates them (the
/// same emitter as `cardgen`): the three tools as `#[hookwire::tool]`s, and
/// hooks as `#[hookwire::hook]`s.
mod generated {
    use hookwire::{Decision, Json, Next, Outcome, ToolArgs, ToolContext};

    /// Adds one.
    #[hookwire::tool]
    pub async fn add_one(x: i64) -> Json<i64> {
        Json(x.wrapping_add(1))
    }

    /// Multiplies.
    #[hookwire::tool]
    pub async fn mul(a: i64, b: i64) -> Json<i64> {
        Json(a.wrapping_mul(b))
    }

    /// Echoes.
    #[hookwire::tool]
    pub async fn echo(text: String) -> Json<String> {
        Json(text)
    }

    /// Six more tools, so that the emitter writes its perfect-hash dispatch
    /// (it writes a `match` on the name up to eight tools).
    macro_rules! pads {
        ($($name:ident),*) => {$(
            #[doc = "Pads the tool set."]
            #[hookwire::tool]
            pub fn $name() -> String {
                String::new()
            }
        )*};
    }
    pads!(pad0, pad1, pad2, pad3, pad4, pad5);

    /// Calls `next`.
    #[hookwire::hook]
    pub async fn noop(cx: &mut ToolContext, args: ToolArgs, next: Next) -> Outcome {
        next.run(cx, args).await
    }

    /// Lets every call through without reading its arguments.
    #[hookwire::hook]
    pub async fn allow(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
        Decision::Continue
    }

    /// Reads the argument `x` (parsing the model's text if no one did).
    #[hookwire::hook]
    pub async fn read_x(_cx: &mut ToolContext, args: &mut ToolArgs) -> Decision {
        std::hint::black_box(args.get("x").and_then(|x| x.as_i64()));
        Decision::Continue
    }

    /// Looks at the outcome and keeps it.
    #[hookwire::hook]
    pub async fn keep(_cx: &mut ToolContext, outcome: &mut Outcome) {
        std::hint::black_box(outcome.is_ok());
    }

    /// The three tools, no hooks: one `match` on the name.
    #[hookwire::agent(name = "e2e", function_tools = [add_one, mul, echo])]
    pub struct Plain;

    /// The same three among nine: the perfect-hash dispatch.
    #[hookwire::agent(
        name = "e2e_hashed",
        function_tools = [add_one, mul, echo, pad0, pad1, pad2, pad3, pad4, pad5],
    )]
    pub struct Hashed;

    /// The three tools, `add_one` behind four hooks: a guarded (fail-open)
    /// around hook, a pre hook, a post hook and a counting around hook.
    #[hookwire::agent(
        name = "e2e_hooked",
        function_tools = [add_one(hooks = [noop(on_failure = "open"), allow, keep, super::Count]), mul, echo],
    )]
    pub struct Hooked;

    /// The three tools, `add_one` behind a pre hook that reads `x`.
    #[hookwire::agent(
        name = "e2e_reads",
        function_tools = [add_one(hooks = [read_x]), mul, echo],
    )]
    pub struct Reads;
}

/// A model that answers at once: a call of `add_one` while the last message
/// is the user's (if `call`), else the final answer `done`.
struct Answers {
    call: bool,
}

impl hookwire::model::Model for Answers {
    fn name(&self) -> &str {
        "answers"
    }

    fn complete<'a>(
        &'a self,
        request: hookwire::model::ModelRequest<'a>,
    ) -> hookwire::model::BoxFuture<
        'a,
        Result<hookwire::model::ModelResponse, hookwire::model::ModelError>,
    > {
        let last_is_user = matches!(
            request.messages.last(),
            Some(hookwire::model::Message::User { .. })
        );
        let response = if self.call && last_is_user {
            hookwire::model::ModelResponse::tool_calls(
                "",
                vec![ToolCall::new(
                    "call_0001",
                    "add_one",
                    ToolArgs::from_json(r#"{"x":41}"#),
                )],
            )
        } else {
            hookwire::model::ModelResponse::text("done")
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

/// hookwire's path: a `ToolCall` from the model's strings, dispatched by a
/// tool set, and the result's text.
#[inline(always)]
fn via_router<T: ToolSet>(
    tools: &T,
    scope: &CallScope,
    (id, name, arguments): (Arc<str>, Arc<str>, String),
) -> String {
    let call = ToolCall::new(id, name, ToolArgs::from_json(arguments));
    result_text(ready(tools.dispatch(scope, call)))
}

/// A model's call as it arrives: its id and name as a provider makes them
/// (`ToolCall`'s shared strings, one allocation each) and the argument text.
fn model_call() -> (Arc<str>, Arc<str>, String) {
    (
        Arc::from("call_0001"),
        Arc::from("add_one"),
        String::from(r#"{"x":41}"#),
    )
}

// ---------------------------------------------------------------------------

/// Polls `future` once with a no-op waker; every future in this bench is
/// ready on its first poll.
#[inline(always)]
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("every future in this bench completes on its first poll"),
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

/// Where the cases go: to criterion, or (for instruction counts under
/// callgrind) run `iters` times in a plain loop if the case is `only`.
enum Mode<'c> {
    Criterion(&'c mut Criterion),
    Loop { only: String, iters: u64 },
}

impl Mode<'_> {
    /// A case whose input is made outside the timed region.
    fn batched<I, O>(
        &mut self,
        id: &str,
        mut setup: impl FnMut() -> I,
        mut routine: impl FnMut(I) -> O,
    ) {
        match self {
            Mode::Criterion(c) => {
                let (group, name) = id.split_once('/').unwrap_or(("chain", id));
                c.benchmark_group(group).bench_function(name, |b| {
                    b.iter_batched(&mut setup, &mut routine, BatchSize::SmallInput)
                });
            }
            Mode::Loop { only, iters } if only == id => {
                for _ in 0..*iters {
                    black_box(routine(setup()));
                }
            }
            Mode::Loop { .. } => {}
        }
    }

    /// A case with no input.
    fn case<O>(&mut self, id: &str, mut routine: impl FnMut() -> O) {
        match self {
            Mode::Criterion(c) => {
                let (group, name) = id.split_once('/').unwrap_or(("chain", id));
                c.benchmark_group(group)
                    .bench_function(name, |b| b.iter(&mut routine));
            }
            Mode::Loop { only, iters } if only == id => {
                for _ in 0..*iters {
                    black_box(routine());
                }
            }
            Mode::Loop { .. } => {}
        }
    }
}

fn chain_cases(mode: &mut Mode<'_>) {
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

fn e2e_cases(mode: &mut Mode<'_>) {
    let scope = CallScope::new("bench");
    let check = |text: String| assert_eq!(text, "42");

    // The input alone (made and dropped), for subtracting from loop counts.
    mode.case("e2e/input_only", model_call);

    {
        let (id, name, arguments) = model_call();
        check(ready(hand_written(id, name, arguments)));
    }
    mode.batched("e2e/hand_written", model_call, |(id, name, arguments)| {
        ready(hand_written(id, name, arguments))
    });

    // Routes are tried last-added first: mul, add_one, echo, the same order
    // as the hand-written match.
    let plain = Router::new().tool(Echo).tool(AddOne).tool(Mul);
    check(via_router(&plain, &scope, model_call()));
    mode.batched("e2e/hookwire_0_hooks", model_call, |input| {
        via_router(&plain, &scope, input)
    });

    let hooked = Router::new()
        .tool(Echo)
        .route(
            AddOne.definition(),
            ToolSource::Function,
            chain!(
                Guarded::new(Noop, FailurePolicy::FailClosed, None),
                Pre(Allow),
                Post(Keep),
                Count::default()
                => ToolHandler(AddOne)
            ),
        )
        .tool(Mul);
    check(via_router(&hooked, &scope, model_call()));
    mode.batched("e2e/hookwire_4_hooks", model_call, |input| {
        via_router(&hooked, &scope, input)
    });

    let plain = generated::Plain::new();
    let generated = plain.tools();
    check(via_router(generated, &scope, model_call()));
    mode.batched("e2e/generated_0_hooks", model_call, |input| {
        via_router(generated, &scope, input)
    });

    let hashed = generated::Hashed::new();
    check(via_router(hashed.tools(), &scope, model_call()));
    mode.batched("e2e/generated_0_hooks_hashed", model_call, |input| {
        via_router(hashed.tools(), &scope, input)
    });

    let hooked_agent = generated::Hooked::new();
    let generated_hooked = hooked_agent.tools();
    check(via_router(generated_hooked, &scope, model_call()));
    mode.batched("e2e/generated_4_hooks", model_call, |input| {
        via_router(generated_hooked, &scope, input)
    });

    let reads = generated::Reads::new();
    check(via_router(reads.tools(), &scope, model_call()));
    mode.batched("e2e/generated_reads_args", model_call, |input| {
        via_router(reads.tools(), &scope, input)
    });
}

/// One session of the loop: a new `Runner` over the shared agent, one
/// prompt, run to its answer.
fn session(agent: &Arc<generated::Plain>, model: &Arc<Answers>) -> String {
    let model: Arc<dyn hookwire::model::Model> = model.clone();
    let mut runner = hookwire::agent::Runner::with_model_arc(agent.clone(), model);
    match ready(runner.run("add one to 41")) {
        Ok(out) => out.text,
        Err(e) => panic!("{e}"),
    }
}

/// [`session`], streamed (issue #25: a stream consumer attached): each
/// event is read as it comes, looked at and dropped, as a consumer that
/// forwards events (to a terminal, a server's response) does; the text of
/// the last one, `Done`, is the answer.
fn streamed_session(agent: &Arc<generated::Plain>, model: &Arc<Answers>) -> String {
    use futures_util::StreamExt;
    let model: Arc<dyn hookwire::model::Model> = model.clone();
    let mut runner = hookwire::agent::Runner::with_model_arc(agent.clone(), model);
    let mut stream = runner.stream("add one to 41");
    let mut answer = None;
    while let Some(event) = ready(stream.next()) {
        match black_box(event).kind {
            hookwire::agent::EventKind::Done(Ok(out)) => answer = Some(out.text),
            hookwire::agent::EventKind::Done(Err(e)) => panic!("{e}"),
            _ => {}
        }
    }
    answer.unwrap_or_else(|| panic!("a stream ends with `Done`"))
}

fn loop_cases(mode: &mut Mode<'_>) {
    let agent = Arc::new(generated::Plain::new());
    let answer = Arc::new(Answers { call: false });
    let call = Arc::new(Answers { call: true });
    assert_eq!(session(&agent, &answer), "done");
    assert_eq!(session(&agent, &call), "done");
    assert_eq!(streamed_session(&agent, &answer), "done");
    assert_eq!(streamed_session(&agent, &call), "done");
    mode.case("loop/answer_only", || session(&agent, &answer));
    mode.case("loop/one_call", || session(&agent, &call));
    mode.case("loop/answer_only_streamed", || {
        streamed_session(&agent, &answer)
    });
    mode.case("loop/one_call_streamed", || streamed_session(&agent, &call));
}

fn main() {
    // `HOOKWIRE_BENCH_LOOP=chain/noop_16:10000` runs one case in a plain loop
    // instead of under criterion, for counting instructions with callgrind.
    if let Ok(spec) = std::env::var("HOOKWIRE_BENCH_LOOP") {
        let (only, iters) = spec.rsplit_once(':').unwrap_or((spec.as_str(), "1000"));
        let mut mode = Mode::Loop {
            only: only.to_owned(),
            iters: iters.parse().unwrap_or(1000),
        };
        chain_cases(&mut mode);
        e2e_cases(&mut mode);
        loop_cases(&mut mode);
        return;
    }
    let started = SystemTime::now();
    let mut criterion = Criterion::default().configure_from_args();
    chain_cases(&mut Mode::Criterion(&mut criterion));
    e2e_cases(&mut Mode::Criterion(&mut criterion));
    loop_cases(&mut Mode::Criterion(&mut criterion));
    criterion.final_summary();
    report(started);
}
