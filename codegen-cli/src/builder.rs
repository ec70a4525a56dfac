//! [`Builder`]: compile AgentCards from `build.rs`.

use std::path::{Path, PathBuf};

use crate::cards::{self, BuildError, BuildOptions, BuildReport};

/// Compiles a folder of AgentCards from a build script, into `OUT_DIR`.
///
/// [`compile`](Self::compile) is the build script's one line: on a card
/// error it shows every diagnostic (`file:line:col: error: ...`, with the
/// offending line and the help) as cargo errors and fails the build, so
/// nothing further (the `include_agents!()`) is compiled. [`try_compile`](Self::try_compile)
/// returns the errors instead, for a build script that handles them itself.
///
/// Both print `cargo:rerun-if-changed` for the cards folder, every card,
/// every referenced `.rs` file and the MCP server config beside the cards
/// (`hookwire.yaml`), so cargo runs the build script again when one of them
/// changes (a card added or removed changes the folder), and only then.
///
/// ```no_run
/// // build.rs, in `fn main()`
/// hookwire_codegen::Builder::new("cards").compile();
/// ```
///
/// ```ignore
/// // src/lib.rs: the generated agents, as a module
/// mod agents {
///     hookwire::include_agents!();
/// }
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Builder {
    dir: PathBuf,
    out_dir: Option<PathBuf>,
    emit_rerun: bool,
}

/// The folder inside `OUT_DIR` that [`Builder`] writes to by default.
pub const DEFAULT_SUBDIR: &str = "agents";

impl Builder {
    /// A builder for the cards in `dir` (relative to the crate root).
    pub fn new(dir: impl AsRef<Path>) -> Self {
        Self {
            dir: dir.as_ref().to_owned(),
            out_dir: None,
            emit_rerun: true,
        }
    }

    /// Writes into `out` instead of `$OUT_DIR/agents`.
    pub fn out_dir(mut self, out: impl AsRef<Path>) -> Self {
        self.out_dir = Some(out.as_ref().to_owned());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` lines (default: yes).
    pub fn emit_rerun_if_changed(mut self, yes: bool) -> Self {
        self.emit_rerun = yes;
        self
    }

    /// Checks the cards, then generates and writes the code, as a build
    /// script does: returns the path of the generated `mod.rs`. On any
    /// error it prints every diagnostic to cargo (`cargo::error=` lines,
    /// which cargo shows as `error: <file>:<line>:<col>: ...`, and the full
    /// diagnostics on standard error) and ends the build script with a
    /// failure: the crate is not compiled against stale or missing agents.
    pub fn compile(self) -> PathBuf {
        match self.try_compile() {
            Ok((module, _)) => module,
            Err(error) => {
                let lines = cargo_errors(&error);
                for line in &lines {
                    println!("{line}");
                }
                if let BuildError::Cards(diags) = &error {
                    for d in diags {
                        eprintln!("{d}");
                    }
                }
                eprintln!("{error}");
                std::process::exit(1)
            }
        }
    }

    /// Checks the cards, then generates and writes the code. Returns the
    /// path of the generated `mod.rs` and what was written, or the errors,
    /// with nothing written; prints nothing but the `rerun-if-changed`
    /// lines.
    ///
    /// The work runs on a thread with a large stack (the Rust files the
    /// cards reference are parsed by recursive descent), so a build script's
    /// main thread is enough.
    pub fn try_compile(self) -> Result<(PathBuf, BuildReport), BuildError> {
        let stack = std::thread::Builder::new().stack_size(cards::STACK_SIZE);
        match stack.spawn(move || self.compile_here()) {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(e) => Err(BuildError::Io(e)),
        }
    }

    fn compile_here(self) -> Result<(PathBuf, BuildReport), BuildError> {
        let out = match self.out_dir {
            Some(out) => out,
            None => {
                let out_dir = std::env::var_os("OUT_DIR").ok_or_else(|| {
                    BuildError::Io(std::io::Error::other(
                        "OUT_DIR is not set: call Builder::compile from build.rs, or set Builder::out_dir",
                    ))
                })?;
                PathBuf::from(out_dir).join(DEFAULT_SUBDIR)
            }
        };
        if self.emit_rerun {
            println!("cargo:rerun-if-changed={}", self.dir.display());
        }
        let loaded = cards::load_dir(&self.dir);
        let cards = match loaded {
            Ok(c) => c,
            Err(diags) => {
                if self.emit_rerun {
                    rerun_for_dir(&self.dir);
                }
                return Err(BuildError::Cards(diags));
            }
        };
        if self.emit_rerun {
            let configs = cards::SERVER_CONFIG_FILES
                .iter()
                .map(|f| self.dir.join(f))
                .filter(|f| f.is_file());
            for input in cards.inputs().into_iter().chain(configs) {
                println!("cargo:rerun-if-changed={}", input.display());
            }
        }
        let opts = BuildOptions::new(&out).absolute_paths(true);
        cards::check_output(&out, &cards)?;
        let files = cards::generate(&cards, &opts).map_err(BuildError::Cards)?;
        let report = cards::write_all(&out, &files)?;
        Ok((out.join(cards::MODULE_FILE), report))
    }
}

/// The `cargo::error=` lines for `error`: one per diagnostic, its first
/// line (`file:line:col: error: message`) and its help. A directive is one
/// line, so each part is escaped as the diagnostics escape user text.
fn cargo_errors(error: &BuildError) -> Vec<String> {
    match error {
        BuildError::Cards(diags) => diags
            .iter()
            .map(|d| {
                let text = d.to_string();
                let first = text.lines().next().unwrap_or_default();
                let help = d
                    .help
                    .as_deref()
                    .map(|h| format!(" (help: {})", cards::escape(h)))
                    .unwrap_or_default();
                format!("cargo::error={first}{help}")
            })
            .collect(),
        other => vec![format!(
            "cargo::error={}",
            cards::escape(&other.to_string())
        )],
    }
}

/// On error, rerun when anything in the folder changes.
fn rerun_for_dir(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}
