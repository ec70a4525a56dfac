//! `Builder::compile` as cargo runs it: this test binary runs itself again
//! as the build script of a crate in a temporary folder (the ignored
//! `build_script_main` below is that script's `main`), and the tests read
//! what cargo would read: the exit status, the `cargo:` lines on standard
//! output, the diagnostics on standard error, the files in `OUT_DIR`.

use std::path::Path;
use std::process::{Command, Output};

/// The build script's `main`, as docs/cards.md writes it. Run only by
/// [`run_build_script`] (a child process with the variables cargo sets).
#[test]
#[ignore = "the build script of the tests below, run as a child process"]
fn build_script_main() {
    if std::env::var_os("HOOKWIRE_BUILD_SCRIPT_TEST").is_some() {
        hookwire_codegen::Builder::new("cards").compile();
    }
}

/// Runs [`build_script_main`] in `crate_dir` with `OUT_DIR` set, as cargo
/// does.
fn run_build_script(crate_dir: &Path, out_dir: &Path) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "build_script::build_script_main",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .current_dir(crate_dir)
        .env("HOOKWIRE_BUILD_SCRIPT_TEST", "1")
        .env("OUT_DIR", out_dir)
        .output()
        .unwrap()
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A crate with `cards/shop.md`, whose tool is `list_orders` in
/// `cards/tools.rs`, and a server config beside the cards; the card names
/// the tool as `tool`.
fn shop_crate(tool: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put(
        &dir.path().join("cards/shop.md"),
        &format!("---\nname: shop\nfunction_tools: [tools.rs:{tool}]\n---\nYou sell.\n"),
    );
    put(
        &dir.path().join("cards/tools.rs"),
        "/// Lists the orders.\n#[hookwire::tool]\npub fn list_orders() -> String {\n    String::new()\n}\n",
    );
    put(&dir.path().join("cards/hookwire.yaml"), "servers: {}\n");
    dir
}

/// The lines of the script's output that start with `prefix` (the test
/// harness prints its `test ... ` before the script's first line).
fn lines_starting(text: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.find(prefix).map(|at| l[at..].to_owned()))
        .collect()
}

#[test]
fn a_card_error_fails_the_build_with_the_cards_file_line_and_column() {
    let krate = shop_crate("list_orderz");
    let out = tempfile::tempdir().unwrap();
    let run = run_build_script(krate.path(), out.path());
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stdout}\n{stderr}");
    // Cargo prints each `cargo::error=` as `error: ...` and fails the build.
    assert_eq!(
        lines_starting(&stdout, "cargo::error="),
        [
            "cargo::error=cards/shop.md:3:18: error: no top-level function `list_orderz` in \
          `tools.rs` (help: did you mean `tools.rs:list_orders`?)"
        ],
        "{stdout}"
    );
    // The whole diagnostic, with the offending line, on standard error
    // (cargo shows it under the failed build script).
    assert!(
        stderr.contains(
            "cards/shop.md:3:18: error: no top-level function `list_orderz` in `tools.rs`\n  |\n\
             3 | function_tools: [tools.rs:list_orderz]\n  |                  ^^^^^^^^^^^^^^^^^^^^\n"
        ),
        "{stderr}"
    );
    // Nothing was written, so nothing stale is compiled.
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

#[test]
fn a_good_build_writes_the_module_and_reruns_only_for_its_inputs() {
    let krate = shop_crate("list_orders");
    // A referenced file in a subfolder is an input too; another file there
    // is not.
    put(
        &krate.path().join("cards/audit.md"),
        "---\nname: audit\nfunction_tools: [shared/more.rs:count]\n---\nYou count.\n",
    );
    put(
        &krate.path().join("cards/shared/more.rs"),
        "/// Counts.\n#[hookwire::tool]\npub fn count() -> String {\n    String::new()\n}\n",
    );
    put(
        &krate.path().join("cards/shared/unrelated.rs"),
        "// not a tool\n",
    );
    let out = tempfile::tempdir().unwrap();
    let run = run_build_script(krate.path(), out.path());
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        lines_starting(&stdout, "cargo::error").is_empty(),
        "{stdout}"
    );
    // Referenced Rust files are named by their full path.
    let root = format!("{}/", krate.path().canonicalize().unwrap().display());
    let mut reruns: Vec<String> = lines_starting(&stdout, "cargo:rerun-if-changed=")
        .iter()
        .map(|l| l.replace(&root, ""))
        .collect();
    reruns.sort();
    assert_eq!(
        reruns,
        [
            "cargo:rerun-if-changed=cards",
            "cargo:rerun-if-changed=cards/audit.md",
            "cargo:rerun-if-changed=cards/hookwire.yaml",
            "cargo:rerun-if-changed=cards/shared/more.rs",
            "cargo:rerun-if-changed=cards/shop.md",
            "cargo:rerun-if-changed=cards/tools.rs",
        ],
        "{stdout}"
    );
    let module = std::fs::read_to_string(out.path().join("agents/mod.rs")).unwrap();
    assert!(module.contains("pub mod shop;"), "{module}");
    assert!(module.contains("pub mod audit;"), "{module}");
}
