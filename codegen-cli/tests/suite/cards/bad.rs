//! Bad cards. Each folder of `codegen-cli/tests/cards/bad/` is one case: a
//! cards folder with one mistake (`many_errors` has three), and beside its
//! cards an `expected.txt` with all that `build` reports for it, in order:
//! each diagnostic's `file:line:col: error:` line, source line, caret, help
//! and notes, its paths relative to `codegen-cli/tests/cards`. Folders whose
//! names start with `_` are not cases (files that cases link to).
//!
//! To change expectations on purpose, run
//! `HOOKWIRE_BLESS=1 cargo test -p hookwire-codegen --test suite cards::bad`
//! and read every line of `git diff codegen-cli/tests/cards/bad` before
//! committing it; a new case is a new folder, blessed the same way.

use std::path::{Path, PathBuf};

use hookwire_codegen::cards::{self, BuildError, BuildOptions};

use super::{fixtures, prepared_out, render, snapshot};

/// Set to rewrite every `expected.txt` from what `build` reports.
const BLESS: &str = "HOOKWIRE_BLESS";

/// The case folders under `bad/`, in name order.
fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures().join("bad"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('_'))
        .collect();
    cases.sort();
    cases
}

/// `text` with the absolute path of `codegen-cli/tests/cards/` (as given
/// and as resolved) taken out of it.
fn relative(text: &str) -> String {
    let root = fixtures();
    let mut roots = vec![root.clone()];
    if let Ok(resolved) = root.canonicalize()
        && resolved != root
    {
        roots.push(resolved);
    }
    roots.iter().fold(text.to_owned(), |text, root| {
        text.replace(&format!("{}/", root.display()), "")
    })
}

/// What `build` reports for the cards folder `dir`, whose build must fail
/// with card errors and leave an output folder as it was.
fn report(dir: &Path) -> String {
    let out = prepared_out();
    let before = snapshot(out.path());
    let result = cards::build(dir, &BuildOptions::new(out.path()));
    let Err(BuildError::Cards(diags)) = result else {
        panic!(
            "{}: expected card errors, got {:?}",
            dir.display(),
            result.map(|_| ())
        );
    };
    assert_eq!(
        snapshot(out.path()),
        before,
        "{}: the output folder changed",
        dir.display()
    );
    relative(&render(&diags))
}

#[test]
fn every_bad_card_gives_the_diagnostics_kept_beside_it_and_writes_nothing() {
    let bless = std::env::var_os(BLESS).is_some();
    let cases = cases();
    assert!(cases.len() >= 81, "{} cases", cases.len());
    let mut failures = Vec::new();
    for dir in &cases {
        let actual = report(dir);
        let file = dir.join("expected.txt");
        if bless {
            std::fs::write(&file, &actual).unwrap();
            continue;
        }
        match std::fs::read_to_string(&file) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{}:\n--- expected\n{expected}--- reported\n{actual}",
                relative(&file.display().to_string())
            )),
            Err(e) => failures.push(format!("{}: {e}", file.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bad cases differ from their expected.txt ({BLESS}=1 rewrites \
         them; review the diff):\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn errors_in_several_cards_are_all_reported() {
    // The `bad` folder itself is not a cards folder, so use two cases at once:
    // copy them into one folder.
    let dir = tempfile::tempdir().unwrap();
    for case in ["unknown_field", "wrong_type"] {
        let src = fixtures().join("bad").join(case).join("a.md");
        std::fs::copy(src, dir.path().join(format!("{case}.md"))).unwrap();
    }
    let diags = cards::load_dir(dir.path()).unwrap_err();
    assert_eq!(diags.len(), 2, "{}", render(&diags));
}

#[test]
fn a_symlinked_card_out_of_the_folder_is_refused_unread_like_a_rust_file() {
    let dir = fixtures().join("bad/card_symlink_out");
    let diags = cards::load_dir(&dir).unwrap_err();
    assert_eq!(diags.len(), 1, "{}", render(&diags));
    let d = &diags[0];
    assert_eq!((d.path.clone(), d.line), (dir.join("evil.md"), 1));
    assert!(
        d.message
            .starts_with("card `evil.md` lies outside the cards folder (it resolves to "),
        "{d}"
    );
    assert_eq!(d.source_line, None);
    assert!(!d.to_string().contains("SECRET"), "{d}");
    // The same rule, with the same words, for a referenced `.rs` file.
    let rs = cards::load_dir(&fixtures().join("bad/symlink_out")).unwrap_err();
    assert!(
        rs[0]
            .message
            .starts_with("`evil.rs` lies outside the cards folder (it resolves to "),
        "{}",
        rs[0]
    );
}
