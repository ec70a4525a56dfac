//! What a durable session costs per step against the in-memory runner
//! (issue 15, benchmark). A bench binary, not a timed test: it prints the
//! ratio taken in one run.
//!
//! ```text
//! cargo bench -p hookwire-examples --bench durable_steps
//! DURABLE_PMO_TOOL_DELAY_MS=10 cargo bench -p hookwire-examples --bench durable_steps
//! ```
//!
//! The same agent (the durable PMO: `#[agent]` tools behind the audit hook)
//! and the same scripted model run a 19-step conversation, each step one
//! model answer with one tool call, then a final answer: in memory
//! (`Runner::run`), and as a durable session (`AgentSession/<id>/run`
//! through the ingress of a real `restate-server` on this machine, the
//! service in this process), where each model answer and each tool call is
//! a journaled `ctx.run` step and the session's state is written back. The
//! tools take `DURABLE_PMO_TOOL_DELAY_MS` (0 by default: the loop's own
//! cost, the worst case for the ratio). Needs the server
//! (`.ci/install-restate`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/durable_support/mod.rs"]
mod durable_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hookwire::agent::RunStatus;
use hookwire::durable::DurableAgent;
use hookwire_examples::durable_pmo::{ConversationScript, session_runner};

/// Steps with one tool call each (the final answer makes 20 model requests,
/// the default step limit).
const STEPS: usize = 19;

fn script() -> ConversationScript {
    let dir = tempfile::tempdir().unwrap();
    let path = durable_support::five_step_script(dir.path(), STEPS);
    ConversationScript::from_file(path).unwrap()
}

/// The median of `runs` timings of `run`, per step.
async fn per_step<F, Fut>(runs: usize, mut run: F) -> Duration
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        let started = Instant::now();
        run(i).await;
        times.push(started.elapsed() / STEPS as u32);
    }
    times.sort();
    times[runs / 2]
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!(
            "durable_steps: a benchmark; run it with `cargo bench -p hookwire-examples --bench durable_steps`"
        );
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = durable_support::Server::start();
    let model = Arc::new(script());
    rt.block_on(async {
        // The service, in this process, on a free loopback port.
        let listener = DurableAgent::listener(([127, 0, 0, 1], 0).into(), false).unwrap();
        let address = listener.local_addr().unwrap();
        let served = model.clone();
        tokio::spawn(DurableAgent::new(move |_| session_runner(served.clone())).serve(listener));
        let client = server.client();
        client
            .register(&server.admin, &format!("http://{address}"))
            .await
            .unwrap();

        let memory = |_| {
            let model = model.clone();
            async move {
                let mut runner = session_runner(model);
                let out = runner.run("check").await.unwrap();
                assert_eq!(out.status, RunStatus::Completed);
                assert_eq!(out.steps, STEPS + 1);
            }
        };
        let durable = |i: usize| {
            let client = client.clone();
            async move {
                let out = client.run(&format!("bench-{i}"), "check").await.unwrap();
                assert_eq!(out.status, RunStatus::Completed);
                assert_eq!(out.steps, STEPS + 1);
            }
        };
        // Warm up both (the first durable call also opens the connections).
        per_step(3, memory).await;
        per_step(3, |i| durable(1000 + i)).await;
        let in_memory = per_step(31, memory).await;
        let on_restate = per_step(31, durable).await;
        let delay = std::env::var("DURABLE_PMO_TOOL_DELAY_MS").unwrap_or_else(|_| "0".into());
        println!("durable_steps: {STEPS} steps, one tool call each (tool delay {delay} ms), median of 31 runs");
        println!("  in memory (Runner::run):            {:>10.1} us per step", in_memory.as_secs_f64() * 1e6);
        println!("  durable (AgentSession on Restate):  {:>10.1} us per step", on_restate.as_secs_f64() * 1e6);
        println!(
            "  durable / in memory:                {:>10.2}x  (target <= 3x)",
            on_restate.as_secs_f64() / in_memory.as_secs_f64()
        );
    });
}
