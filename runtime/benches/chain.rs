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
//! * group `e2e`, a call the way a provider parses it from a model's
//!   answer: id, tool name and JSON argument text, three `String`s made
//!   outside the timed region (the `_arc` cases: the id and name made as
//!   `Arc<str>`, a second row) -> dispatch
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
//!   - `generated_guard_3_pass`: the three generated tools, `add_one`
//!     behind a guard that reads its argument `x` and three hooks that pass
//!     the call through (an around, a pre and a post `#[hookwire::hook]`;
//!     target: at most 3.5x `hand_written`);
//!   - `generated_reads_args`: the three generated tools, `add_one` behind
//!     one `#[hookwire::hook]` pre hook that reads its argument `x`;
//!   - `generated_reads_args_typed`, `generated_guard_3_pass_typed`: the
//!     same two with a typed guard (`args: &ArgsOf<add_one>`, reading the
//!     field `x`) instead of the JSON one (`args.get("x")`).
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
//!
//! Layout: this file runs the cases ([`Mode`], [`ready`], `main`); the
//! groups are in `chain/layers.rs` (`chain`), `chain/e2e.rs` (`e2e`) and
//! `chain/sessions.rs` (`loop`), the boxed baseline in `chain/boxed.rs`,
//! the other tools in `chain/tools.rs`, the closing ratio table in
//! `chain/ratios.rs`.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::SystemTime;

#[path = "chain/boxed.rs"]
mod boxed;
#[path = "../tests/chain_fixtures/mod.rs"]
mod chain_fixtures;
#[path = "chain/e2e.rs"]
mod e2e;
#[path = "chain/layers.rs"]
mod layers;
#[path = "chain/ratios.rs"]
mod ratios;
#[path = "chain/sessions.rs"]
mod sessions;
#[path = "chain/tools.rs"]
mod tools;

use criterion::{BatchSize, Criterion};
use e2e::e2e_cases;
use hookwire::{Outcome, call::into_result};
use layers::chain_cases;
use ratios::report;
use sessions::loop_cases;

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

/// The text the model reads, moved out of the result (no copy).
fn result_text(outcome: Outcome) -> String {
    into_result(outcome).into_text_content()
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
