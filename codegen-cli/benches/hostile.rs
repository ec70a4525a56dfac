//! Hostile card sets (issue #16): the cost of `cardgen check` must grow
//! about linearly with the input. Each case runs at n and 10n; compare the
//! two times of a case (a ratio near 10 is linear, near 100 quadratic).
//!
//! `cargo bench -p hookwire-codegen --bench hostile`
//!
//! * unknown fields: one card with n fields no card has;
//! * missing functions: one card referencing n functions a Rust file with
//!   n other functions lacks;
//! * unknown agents: one card listing n agents that do not exist;
//! * cycle: n cards in one chain whose last card calls the first.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hookwire_codegen::cards;

fn unknown_fields(dir: &Path, n: usize) {
    let mut card = String::from("---\nname: a\n");
    for i in 0..n {
        let _ = writeln!(card, "field_{i}: {i}");
    }
    card.push_str("---\nHi.\n");
    std::fs::write(dir.join("a.md"), card).unwrap();
}

fn missing_functions(dir: &Path, n: usize) {
    let mut tools = String::new();
    let mut card = String::from("---\nname: a\nfunction_tools:\n");
    for i in 0..n {
        let _ = writeln!(
            tools,
            "/// Tool {i}.\npub fn tool_{i}(x: i64) -> i64 {{ x }}"
        );
        let _ = writeln!(card, "  - tools.rs:missing_{i}");
    }
    card.push_str("---\nHi.\n");
    std::fs::write(dir.join("tools.rs"), tools).unwrap();
    std::fs::write(dir.join("a.md"), card).unwrap();
}

fn unknown_agents(dir: &Path, n: usize) {
    let mut card = String::from("---\nname: a\nagents:\n");
    for i in 0..n {
        let _ = writeln!(card, "  - ghost-{i}");
    }
    card.push_str("---\nHi.\n");
    std::fs::write(dir.join("a.md"), card).unwrap();
}

fn cycle(dir: &Path, n: usize) {
    for i in 0..n {
        let next = (i + 1) % n;
        std::fs::write(
            dir.join(format!("c{i:05}.md")),
            format!("---\nname: c{i}\nagents: [c{next}]\n---\nHi.\n"),
        )
        .unwrap();
    }
}

type Make = fn(&Path, usize);

fn hostile(c: &mut Criterion) {
    let cases: [(&str, Make, usize); 4] = [
        ("unknown fields", unknown_fields, 1_600),
        ("missing functions", missing_functions, 400),
        ("unknown agents", unknown_agents, 400),
        ("cycle", cycle, 400),
    ];
    for (name, make, n) in cases {
        let mut g = c.benchmark_group(format!("check_{}", name.replace(' ', "_")));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        for size in [n, 10 * n] {
            let dir = tempfile::tempdir().unwrap();
            make(dir.path(), size);
            g.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, _| {
                b.iter(|| {
                    let diags = cards::load_dir(dir.path()).unwrap_err();
                    assert!(!diags.is_empty());
                    diags
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, hostile);
criterion_main!(benches);
