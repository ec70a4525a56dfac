//! What one step of the agent loop costs as the conversation grows, and what
//! an idle session holds (figures: BENCHMARKS.md; issue "Agents as values",
//! point 8). A bench binary, not a timed test: it prints ratios taken in one
//! run.
//!
//! ```text
//! cargo bench -p hookwire --bench steps
//! ```
//!
//! * **Step cost.** A scripted run of 2,000 steps, each one tool call: the
//!   time from the start of step 1,900 to the start of step 2,000 against
//!   the time from step 0 to step 100 (target: at most 1.2x), and the same
//!   for the median step of each window. Each step appends two messages, so
//!   a loop that copied the history per step would make the late steps
//!   about 20x dearer. The median of five runs.
//! * **Idle session.** The bytes a session (a `Runner` over a shared agent)
//!   still holds after one turn with one tool call, counted by a counting
//!   global allocator: what each waiting user costs the process.
//! * **A large argument.** The peak of the bytes allocated while a run
//!   passes one 20 MB string argument to a tool, over the argument's size
//!   (the model's script is made before counting): how many copies of it
//!   the loop holds at once.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use hookwire::agent::lifecycle::{Flow, LifecycleHooks, StepStart};
use hookwire::agent::{AgentConfig, BasicAgent, RunSettings, Runner};
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{FnTool, Json, Router};

/// Notes when each step starts.
#[derive(Default)]
struct Clock(Mutex<Vec<Instant>>);

impl LifecycleHooks for &Clock {
    async fn step_start(&self, _: &mut StepStart<'_>) -> Flow {
        if let Ok(mut starts) = self.0.lock() {
            starts.push(Instant::now());
        }
        Flow::Continue
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    x: i64,
}

fn agent() -> BasicAgent<impl hookwire::ToolSet> {
    let add = FnTool::new(
        "add_one",
        "Adds one.",
        |a: Add| async move { Json(a.x + 1) },
    );
    BasicAgent::new(
        AgentConfig::new("counter").with_instruction("Count."),
        Router::new().tool(add),
    )
}

fn script(steps: usize) -> ScriptedModel {
    let turns = (0..steps)
        .map(|i| {
            if i + 1 == steps {
                Turn::text("done")
            } else {
                Turn::call("add_one", serde_json::json!({ "x": i }))
            }
        })
        .collect::<Vec<_>>();
    ScriptedModel::from_turns(turns)
}

/// One 2,000-step run: (late 100 steps) / (first 100 steps).
fn step_ratio(rt: &tokio::runtime::Runtime) -> Ratios {
    const STEPS: usize = 2000;
    let clock = Clock::default();
    let mut settings = RunSettings::default();
    settings.max_steps = STEPS;
    let mut runner = Runner::new(agent(), script(STEPS))
        .with_settings(settings)
        .with_hooks(&clock);
    let out = rt.block_on(runner.run("go"));
    assert!(matches!(out, Ok(ref o) if o.text == "done" && o.steps == STEPS));
    assert_eq!(runner.history().len(), 2 * STEPS);
    let starts = clock.0.into_inner().unwrap_or_default();
    assert_eq!(starts.len(), STEPS);
    let first = starts[100] - starts[0];
    let last = starts[STEPS - 1] - starts[STEPS - 101];
    let steps: Vec<f64> = starts
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64())
        .collect();
    let median = |window: &[f64]| {
        let mut w = window.to_vec();
        w.sort_by(f64::total_cmp);
        w[w.len() / 2]
    };
    Ratios {
        windows: last.as_secs_f64() / first.as_secs_f64(),
        typical: median(&steps[STEPS - 101..]) / median(&steps[..100]),
    }
}

/// The late steps against the first ones, two ways.
struct Ratios {
    /// The time of steps 1,901-2,000 over the time of steps 1-100.
    windows: f64,
    /// The median step of each window, the same way round: the typical
    /// step, without the occasional outlier (a context switch on a shared
    /// machine, a history `Vec` doubling).
    typical: f64,
}

/// The bytes a session holds after one turn with one tool call.
fn idle_session_bytes(rt: &tokio::runtime::Runtime) -> i64 {
    let agent = Arc::new(agent());
    // Warm up what is made once per process (tracing's callsites, the
    // runtime's first task), so that only the session is counted.
    let mut warm = Runner::new(agent.clone(), script(2));
    let _ = rt.block_on(warm.run("hello"));
    drop(warm);
    let mut kept = None;
    let info = allocation_counter::measure(|| {
        let mut session = Runner::new(agent, script(2));
        let out = rt.block_on(session.run("hello"));
        assert!(matches!(out, Ok(ref o) if o.text == "done"));
        kept = Some(session);
    });
    drop(kept);
    info.bytes_current
}

/// The peak bytes of a run with one 20 MB argument, over 20 MB.
fn large_argument_peak(rt: &tokio::runtime::Runtime) -> f64 {
    const SIZE: usize = 20 << 20;
    let size_of = FnTool::new("size_of", "Counts bytes.", |a: Text| async move {
        Json(a.text.len())
    });
    let agent = BasicAgent::new(
        AgentConfig::new("sizer").with_instruction("Measure."),
        Router::new().tool(size_of),
    );
    let model = ScriptedModel::from_turns(vec![
        Turn::call("size_of", serde_json::json!({ "text": "x".repeat(SIZE) })),
        Turn::text("done"),
    ]);
    let mut runner = Runner::new(agent, model);
    let info = allocation_counter::measure(|| {
        let out = rt.block_on(runner.run("go"));
        assert!(matches!(out, Ok(ref o) if o.text == "done"));
    });
    info.bytes_max as f64 / SIZE as f64
}

fn main() {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("runtime: {e}"),
    };
    let runs: Vec<Ratios> = (0..5).map(|_| step_ratio(&rt)).collect();
    for (what, pick) in [
        (
            "the time of steps 1,901-2,000 / steps 1-100",
            (|r: &Ratios| r.windows) as fn(&Ratios) -> f64,
        ),
        ("the median step of 1,901-2,000 / of 1-100", |r: &Ratios| {
            r.typical
        }),
    ] {
        let mut ratios: Vec<f64> = runs.iter().map(pick).collect();
        ratios.sort_by(f64::total_cmp);
        let median = ratios[2];
        let shown: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        println!(
            "2,000-step run, {what}: {median:.2}x (median of 5 runs: {}) target <= 1.20x: {}",
            shown.join(", "),
            if median <= 1.2 { "met" } else { "MISSED" }
        );
    }
    println!(
        "an idle session after one turn with one tool call holds {} bytes",
        idle_session_bytes(&rt)
    );
    println!(
        "a run with one 20 MB argument peaks at {:.1}x the argument's size",
        large_argument_peak(&rt)
    );
}
