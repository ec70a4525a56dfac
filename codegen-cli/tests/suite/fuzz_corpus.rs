//! The fuzz target's seed corpus (`codegen-cli/fuzz/corpus/card_loader`)
//! run as a normal test, through the very function the fuzz target calls.

use std::path::Path;

#[test]
fn the_card_loader_survives_its_seed_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/card_loader");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    assert!(
        entries.len() >= 50,
        "seed corpus missing: {}",
        dir.display()
    );
    for path in entries {
        let data = std::fs::read(&path).unwrap_or_default();
        hookwire_codegen::cards::fuzz_one(&data);
    }
}

#[test]
fn check_card_reports_without_the_file_system() {
    let ok = hookwire_codegen::cards::check_card(Path::new("a.md"), b"---\nname: a\n---\nHi.\n");
    assert_eq!(ok.map(|s| s.instruction).ok().as_deref(), Some("Hi."));
    let err =
        hookwire_codegen::cards::check_card(Path::new("a.yaml"), b"name: a\nmax_parallel: 0\n");
    let diags = err.err().unwrap_or_default();
    assert_eq!(diags.len(), 1);
    assert_eq!((diags[0].line, diags[0].col), (2, 15));
}

/// 200,000 `!` in a `match:` (which once overflowed cardgen's stack) is an
/// error at the pattern, also on a thread with a 256 KiB stack: the parse
/// is iterative and bounded.
#[test]
fn a_huge_negated_matcher_is_an_error_on_a_small_stack() {
    let card = format!(
        "---\nname: ops\ntool_hooks:\n  - hook: hooks.rs:guard\n    match: \"{}shell\"\n---\nHi.\n",
        "!".repeat(200_000)
    );
    let diags = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            hookwire_codegen::cards::check_card(Path::new("a.md"), card.as_bytes())
                .expect_err("the card is invalid")
        })
        .unwrap()
        .join()
        .unwrap();
    let found: Vec<(usize, usize, &str)> = diags
        .iter()
        .map(|d| (d.line, d.col, d.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            5,
            12,
            "invalid `match`: matcher too long: 200005 bytes, at most 1024"
        )]
    );
}
