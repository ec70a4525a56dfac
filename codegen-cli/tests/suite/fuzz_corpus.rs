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
