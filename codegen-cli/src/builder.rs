//! [`Builder`]: compile AgentCards from `build.rs`.

use std::path::{Path, PathBuf};

use crate::cards::{self, BuildError, BuildOptions, BuildReport};

/// Compiles a folder of AgentCards from a build script, into `OUT_DIR`.
///
/// It prints `cargo:rerun-if-changed` for the folder, every card and every
/// referenced `.rs` file, and on error prints every diagnostic (cargo shows
/// them when the build script fails) and writes nothing.
///
/// ```no_run
/// // build.rs
/// # fn main() -> Result<(), hookwire_codegen::cards::BuildError> {
/// hookwire_codegen::Builder::new("cards").compile()?;
/// # Ok(())
/// # }
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

    /// Checks the cards, then generates and writes the code. Returns the
    /// path of the generated `mod.rs` and what was written.
    ///
    /// The work runs on a thread with a large stack (the Rust files the
    /// cards reference are parsed by recursive descent), so a build script's
    /// main thread is enough.
    pub fn compile(self) -> Result<(PathBuf, BuildReport), BuildError> {
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
                for d in &diags {
                    eprintln!("{d}");
                }
                if self.emit_rerun {
                    rerun_for_dir(&self.dir);
                }
                return Err(BuildError::Cards(diags));
            }
        };
        if self.emit_rerun {
            for input in cards.inputs() {
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
