//! What a durable session costs per step against the in-memory runner
//! (issue 15, benchmark). A bench binary, not a timed test: it prints the
//! ratio taken in one run.
//!
//! ```text
//! cargo bench -p hookwire-examples --bench durable_steps
//! DURABLE_PMO_TOOL_DELAY_MS=10 cargo bench -p hookwire-examples --bench durable_steps
//! DURABLE_PMO_MODEL_DELAY_MS=5 cargo bench -p hookwire-examples --bench durable_steps
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
//! cost, the worst case for the ratio), the model answers after
//! `DURABLE_PMO_MODEL_DELAY_MS` (0 by default). Needs the server
//! (`.ci/install-restate`).
//!
//! Then a breakdown: runs of 1 and of 19 steps, of 1 and of 4 instant
//! calls each, give the cost of a step, of a run besides its steps, and of
//! each parallel call beyond the first. The server started for the bench
//! takes its settings from the environment (`RESTATE_...` variables), so
//! the same command measures a tuned server, e.g.
//! `RESTATE_LOG_SERVER__ROCKSDB_DISABLE_WAL_FSYNC=true` (see BENCHMARKS.md).
//!
//! `cargo bench -p hookwire-examples --bench durable_steps -- cluster`
//! measures instead a durable step on a three-node cluster (the
//! `deploy/` files: replicated metadata, logs and partitions on two
//! nodes) against one node, both on this machine, in one run: the same
//! 19-step runs, alternating between the two, median of 31 each.

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

/// `steps` steps of `calls` instant `project_status` calls each, then a
/// final answer (for the breakdown).
fn script_of(steps: usize, calls: usize) -> Arc<ConversationScript> {
    let mut yaml = String::from("turns:\n");
    for s in 1..=steps {
        yaml.push_str("  - tool_calls:\n");
        for c in 1..=calls {
            yaml.push_str(&format!(
                "      - {{id: c{s}_{c}, name: project_status, arguments: {{project: P{c}}}}}\n"
            ));
        }
    }
    yaml.push_str("  - text: done\n");
    let script = hookwire::model::Script::from_yaml(&yaml).unwrap();
    Arc::new(ConversationScript::new(script))
}

/// The median of `runs` timings of `run`, per run.
async fn per_run<F, Fut>(runs: usize, mut run: F) -> Duration
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        let started = Instant::now();
        run(i).await;
        times.push(started.elapsed());
    }
    times.sort();
    times[runs / 2]
}

/// The median of `runs` timings of `run`, per step.
async fn per_step<F, Fut>(runs: usize, run: F) -> Duration
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    per_run(runs, run).await / STEPS as u32
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
    if std::env::args().any(|a| a == "cluster") {
        rt.block_on(cluster_against_one_node());
        return;
    }
    let server = durable_support::Server::start();
    let model = Arc::new(script());
    rt.block_on(async {
        // The service, in this process, on a free loopback port.
        let listener = DurableAgent::listener(([127, 0, 0, 1], 0).into(), false).unwrap();
        let address = listener.local_addr().unwrap();
        let served = model.clone();
        // The breakdown's sessions (`<steps>x<calls>-<n>`) play their own
        // scripts.
        let shapes: Vec<(String, Arc<ConversationScript>)> = [(1, 1), (STEPS, 1), (1, 4), (STEPS, 4)]
            .into_iter()
            .map(|(steps, calls)| (format!("{steps}x{calls}-"), script_of(steps, calls)))
            .collect();
        tokio::spawn(
            DurableAgent::new(move |session| {
                let model = shapes
                    .iter()
                    .find(|(prefix, _)| session.starts_with(prefix.as_str()))
                    .map_or_else(|| served.clone(), |(_, model)| model.clone());
                session_runner(model)
            })
            .serve(listener),
        );
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
        let model_delay = std::env::var("DURABLE_PMO_MODEL_DELAY_MS").unwrap_or_else(|_| "0".into());
        println!(
            "durable_steps: {STEPS} steps, one tool call each (tool delay {delay} ms, model delay {model_delay} ms), median of 31 runs"
        );
        println!("  in memory (Runner::run):            {:>10.1} us per step", in_memory.as_secs_f64() * 1e6);
        println!("  durable (AgentSession on Restate):  {:>10.1} us per step", on_restate.as_secs_f64() * 1e6);
        println!(
            "  durable / in memory:                {:>10.2}x  (targets: <= 20x with an instant tool, <= 1.5x with tools of 1 ms or more)",
            on_restate.as_secs_f64() / in_memory.as_secs_f64()
        );

        // Where a durable step's time goes: runs of 1 and of 19 steps give
        // the cost of a step (the slope) and of a run (the rest); steps of
        // 4 calls give the cost of a call beyond the first.
        let shape = |steps: usize, calls: usize| {
            let client = client.clone();
            move |i: usize| {
                let client = client.clone();
                async move {
                    let out = client.run(&format!("{steps}x{calls}-{i}"), "check").await.unwrap();
                    assert_eq!(out.status, RunStatus::Completed);
                    assert_eq!(out.steps, steps + 1);
                }
            }
        };
        // (Each run a new session: a session's history would make the
        // next run continue its conversation.)
        let warm = shape(1, 1);
        per_run(3, |i| warm(1000 + i)).await;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let one = ms(per_run(31, shape(1, 1)).await);
        let many = ms(per_run(31, shape(STEPS, 1)).await);
        let one4 = ms(per_run(31, shape(1, 4)).await);
        let many4 = ms(per_run(31, shape(STEPS, 4)).await);
        let step = (many - one) / (STEPS - 1) as f64;
        let step4 = (many4 - one4) / (STEPS - 1) as f64;
        println!("breakdown (median of 31 runs of each shape, instant tools):");
        println!("  run of 1 step, 1 call:              {one:>10.3} ms");
        println!("  run of {STEPS} steps, 1 call each:      {many:>10.3} ms");
        println!("  run of 1 step, 4 calls:             {one4:>10.3} ms");
        println!("  run of {STEPS} steps, 4 calls each:     {many4:>10.3} ms");
        println!(
            "  a step (model answer + 1 call):     {step:>10.3} ms  (2 journal entries; the answer's acknowledgement awaited, which covers the call's)"
        );
        println!(
            "  a run, besides its steps:           {:>10.3} ms  (ingress, invocation, state read and write, final answer, output)",
            one - step
        );
        println!("  a step with 4 parallel calls:       {step4:>10.3} ms");
        println!("  each call beyond the first:         {:>10.3} ms", (step4 - step) / 3.0);
        println!(
            "  of a step, in-memory work:          {:>10.3} ms  (the runner's step)",
            in_memory.as_secs_f64() * 1e3
        );
    });
}

/// A durable step on the three-node cluster against one node (the
/// `cluster` argument): the same service, registered with both.
async fn cluster_against_one_node() {
    let server = durable_support::Server::start();
    let cluster = durable_support::cluster::Cluster::start();
    let model = Arc::new(script());
    let listener = DurableAgent::listener(([127, 0, 0, 1], 0).into(), false).unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let served = model.clone();
    tokio::spawn(DurableAgent::new(move |_| session_runner(served.clone())).serve(listener));
    let one = server.client();
    one.register(&server.admin, &address).await.unwrap();
    let three = cluster.client();
    three
        .register(&cluster.nodes[0].admin, &address)
        .await
        .unwrap();
    let run = |client: &hookwire::durable::DurableClient, session: String| {
        let client = client.clone();
        async move {
            let started = Instant::now();
            let out = client.run(&session, "check").await.unwrap();
            assert_eq!(out.status, RunStatus::Completed);
            assert_eq!(out.steps, STEPS + 1);
            started.elapsed()
        }
    };
    for i in 0..3 {
        run(&one, format!("warm-{i}")).await;
        run(&three, format!("warm-{i}")).await;
    }
    let (mut single, mut replicated) = (Vec::new(), Vec::new());
    for i in 0..31 {
        single.push(run(&one, format!("bench-{i}")).await / STEPS as u32);
        replicated.push(run(&three, format!("bench-{i}")).await / STEPS as u32);
    }
    single.sort();
    replicated.sort();
    let (single, replicated) = (single[15], replicated[15]);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "durable_steps cluster: {STEPS} steps, one instant tool call each, median of 31 runs each, alternating"
    );
    println!(
        "  one node:                                {:>8.3} ms per step",
        ms(single)
    );
    println!(
        "  three nodes, replication 2 (deploy/):    {:>8.3} ms per step  (through node 1's ingress)",
        ms(replicated)
    );
    println!(
        "  cluster / one node:                      {:>8.2}x",
        replicated.as_secs_f64() / single.as_secs_f64()
    );
}
