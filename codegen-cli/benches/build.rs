//! `cardgen build` of 1,000 generated cards (target: under 1 s), and the
//! rebuild with no change (which writes no file); then the loading and the
//! generation alone.
//!
//! `cargo bench -p hookwire-codegen --bench build`
//!
//! "fresh output" writes 1,002 files into a new folder each time and
//! deletes it afterwards; on ext4 without a journal, creating files right
//! after deleting many costs far more kernel time than the same creations
//! in a quiet folder, so that figure moves with the file system's recent
//! history. Compare CPU time (`/usr/bin/time`) or the other cases when the
//! machine is busy.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hookwire_codegen::cards::{self, BuildOptions};

const TOOLS: &str = r#"//! Tools.

/// Adds one to `x`.
pub fn add_one(x: i64) -> hookwire::Json<i64> {
    hookwire::Json(x + 1)
}

/// The status of a project.
pub async fn project_status(project: String) -> String {
    format!("{project}: on track")
}
"#;

const HOOKS: &str = r#"//! Hooks.
use hookwire::{Decision, Handler, Next, Outcome, ToolArgs, ToolContext};

/// Tags every result.
pub async fn audit_hook<N: Handler>(cx: &mut ToolContext, args: ToolArgs, next: Next<'_, N>) -> Outcome {
    next.run(cx, args).await
}

/// Lets every call through.
pub async fn clamp(_cx: &mut ToolContext, _args: &mut ToolArgs) -> Decision {
    Decision::Continue
}
"#;

/// 1,000 cards (half `.md`, half `.yaml`), each with two function tools, two
/// hooks (one with a matcher and a timeout) and, in chains of ten, a child
/// agent.
fn write_cards(dir: &Path) {
    std::fs::write(dir.join("tools.rs"), TOOLS).unwrap();
    std::fs::write(dir.join("hooks.rs"), HOOKS).unwrap();
    for i in 0..1000 {
        let child = if i % 10 != 9 {
            format!("agents: [card-{}]\n", i + 1)
        } else {
            String::new()
        };
        let fields = format!(
            "name: card-{i}\ndescription: Card {i}.\nfunction_tools: [tools.rs:add_one, tools.rs:project_status]\ntool_hooks:\n  - hooks.rs:audit_hook\n  - hook: hooks.rs:clamp\n    match: \"add_*\"\n    timeout_ms: 100\n{child}max_parallel: 4\n"
        );
        if i % 2 == 0 {
            std::fs::write(
                dir.join(format!("card-{i:04}.md")),
                format!("---\n{fields}---\nYou are card {i}.\n"),
            )
            .unwrap();
        } else {
            std::fs::write(
                dir.join(format!("card-{i:04}.yaml")),
                format!("{fields}instruction: You are card {i}.\n"),
            )
            .unwrap();
        }
    }
}

fn build(c: &mut Criterion) {
    let cards_dir = tempfile::tempdir().unwrap();
    write_cards(cards_dir.path());
    let mut g = c.benchmark_group("cardgen_build_1000_cards");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("fresh output", |b| {
        b.iter_with_setup(
            || tempfile::tempdir().unwrap(),
            |out| {
                let (_, report) =
                    cards::build(cards_dir.path(), &BuildOptions::new(out.path())).unwrap();
                assert_eq!(report.written.len(), 1002);
                out
            },
        )
    });
    // The phases alone (no file written), to see where the time goes.
    g.bench_function("load and check", |b| {
        b.iter(|| cards::load_dir(cards_dir.path()).unwrap())
    });
    let loaded = cards::load_dir(cards_dir.path()).unwrap();
    g.bench_function("generate (all cores)", |b| {
        b.iter(|| {
            let opts = BuildOptions::new(cards_dir.path().join("out"));
            cards::generate_parallel(cards_dir.path(), &loaded, &opts).unwrap()
        })
    });
    let out = tempfile::tempdir().unwrap();
    cards::build(cards_dir.path(), &BuildOptions::new(out.path())).unwrap();
    g.bench_function("rebuild, no change", |b| {
        b.iter(|| {
            let (_, report) =
                cards::build(cards_dir.path(), &BuildOptions::new(out.path())).unwrap();
            assert!(report.written.is_empty());
        })
    });
    g.finish();
}

criterion_group!(benches, build);
criterion_main!(benches);
