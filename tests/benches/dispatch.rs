//! Name dispatch over 10, 100 and 1,000 generated tools (the emitter's
//! perfect hash): the time per call must stay flat (1,000 / 10 <= 1.5).
//!
//! `cargo bench -p hookwire-tests --bench dispatch`

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hookwire::{
    CallScope, Handler, Hook, Next, Outcome, Tool, ToolArgs, ToolCall, ToolContext, ToolResult,
    ToolSet, call::NoArgs,
};

/// One of many generated tools, told apart by `N`.
#[derive(Debug, Default, Clone, Copy, hookwire::FromDeps)]
pub struct BenchTool<const N: usize>;

impl<const N: usize> Tool for BenchTool<N> {
    type Args = NoArgs;

    fn name(&self) -> &str {
        "bench"
    }

    fn description(&self) -> &str {
        "A benchmark tool."
    }

    async fn call(&self, _cx: &ToolContext, _args: NoArgs) -> Outcome {
        Ok(ToolResult::text(""))
    }
}

/// An agent-level hook around every tool (does next to nothing).
#[derive(Debug, Default, Clone, Copy)]
pub struct Count;

impl Hook for Count {
    async fn around<N: Handler>(
        &self,
        cx: &mut ToolContext,
        args: ToolArgs,
        next: Next<'_, N>,
    ) -> Outcome {
        next.run(cx, args).await
    }
}

#[allow(dead_code)]
mod t10 {
    include!(concat!(env!("OUT_DIR"), "/dispatch_10.rs"));
}
#[allow(dead_code)]
mod t100 {
    include!(concat!(env!("OUT_DIR"), "/dispatch_100.rs"));
}
#[allow(dead_code)]
mod t1000 {
    include!(concat!(env!("OUT_DIR"), "/dispatch_1000.rs"));
}

fn bench_set<T: ToolSet>(c: &mut Criterion, group: &str, tools: &T, n: usize) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let scope = CallScope::new("bench");
    // A name from the middle of the set, so a linear scan would pay for it.
    let name = format!("tool_{}", n / 2);
    assert!(tools.contains(&name));
    let mut g = c.benchmark_group(group);
    g.bench_function(format!("{n}"), |b| {
        b.iter(|| {
            let call = ToolCall::new("", name.as_str(), ToolArgs::from_json(""));
            rt.block_on(black_box(tools).dispatch(&scope, call))
        })
    });
    g.finish();
    let mut g = c.benchmark_group("contains");
    g.bench_function(format!("{n}"), |b| {
        b.iter(|| black_box(tools).contains(black_box(&name)))
    });
    g.finish();
}

fn dispatch(c: &mut Criterion) {
    use hookwire::agent::Agent;
    bench_set(c, "dispatch", t10::Bench10::new().tools(), 10);
    bench_set(c, "dispatch", t100::Bench100::new().tools(), 100);
    bench_set(c, "dispatch", t1000::Bench1000::new().tools(), 1000);
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
