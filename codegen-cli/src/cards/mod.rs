//! AgentCards: loading, validation and diagnostics.
//!
//! A card is a `.md` file with YAML frontmatter (the body is the
//! instruction; a leading `---SYSTEM` line is allowed) or a `.yaml`/`.yml`
//! file (extensions in any case; the server configuration
//! [`SERVER_CONFIG_FILES`] is not a card, nor is the MCP lock `hookwire.lock`, and an entry named like a card
//! that is not a regular file is an error, never skipped). [`load_dir`]
//! reads every card of a folder in sorted order, checks everything
//! (fields, types, ranges, names, agent references and cycles, the Rust
//! functions referenced as `file.rs:function` and their signatures, the lifecycle hook types referenced as `file.rs:Type` under
//! `hooks:`) and returns either the loaded cards or **every** error, each a
//! [`Diagnostic`] pointing at the file, line and column.
//!
//! `deps: file.rs:Type` names the type the agent is built from (the same
//! rules as a lifecycle hook type below, without `Default`); every `Dep<T>`
//! parameter of the card's function tools must be provided by it (see
//! `deps.rs` in this module for the rule).
//!
//! A lifecycle hook type must be a `pub`, non-generic top-level `struct`,
//! `enum` or `type` alias of its file; the generated code builds it with
//! `Default::default()` (as `#[agent(hooks = [..])]` does), so a struct or
//! enum must derive or implement `Default` there, and implement
//! `hookwire::agent::lifecycle::LifecycleHooks` there too. A type alias is
//! taken as it is: the compiler checks what it stands for.
//!
//! ```no_run
//! let cards = hookwire_codegen::cards::load_dir(std::path::Path::new("cards"))
//!     .unwrap_or_else(|errors| panic!("{} errors", errors.len()));
//! for card in &cards.cards {
//!     println!("{}: {} tools", card.spec.name, card.spec.function_tools.len());
//! }
//! ```

mod build;
mod cross;
mod deps;
mod depth;
mod diag;
mod env;
mod fields;
mod names;
mod report;
mod rust;
mod servers;
mod source;
mod text;

use std::path::{Path, PathBuf};

pub use build::{
    BuildError, BuildOptions, BuildReport, GeneratedFile, MODULE_FILE, RUST_REFS_FILE, STACK_SIZE,
    build, generate, generate_parallel, write_all,
};
pub use diag::{Diagnostic, did_you_mean, escape, line_col};
pub use fields::FIELDS;
pub use report::{GraphFormat, explain, explain_json, graph, schema};

pub(crate) use build::check_output;
pub(crate) use source::Source;
use source::*;

use crate::spec::AgentSpec;
use crate::yaml::{self, Seg};

/// Every card of a folder, loaded and checked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Cards {
    /// The folder the cards were read from (canonical).
    pub root: PathBuf,
    /// The cards, in file-name order.
    pub cards: Vec<Card>,
    /// The referenced Rust files and the adapters of their functions, each
    /// once for the whole folder under its build-wide name: what
    /// [`RUST_REFS_FILE`] declares and the cards' modules `use`.
    shared: rust::Shared,
}

impl Cards {
    /// The card of the agent `name`.
    pub fn get(&self, name: &str) -> Option<&Card> {
        self.cards.iter().find(|c| c.spec.name == name)
    }

    /// The card marked `default: true` (at most one is: a second is an
    /// error on its `default:`), which the generated module exports as
    /// `default()`.
    pub fn default_agent(&self) -> Option<&Card> {
        self.cards.iter().find(|c| c.spec.default)
    }

    /// What `cardgen check` and `cardgen build` say about the default
    /// agent, one line.
    pub fn default_line(&self) -> String {
        match self.default_agent() {
            Some(card) => format!(
                "default agent: {} (the generated module's `default()` builds it)",
                escape(&card.spec.name)
            ),
            None => "no default agent (mark one card `default: true` for the generated module's `default()`)".to_owned(),
        }
    }

    /// Every file the cards were read from or reference (cards and `.rs`
    /// files), sorted: what a build script reruns on.
    pub fn inputs(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .cards
            .iter()
            .flat_map(|c| {
                std::iter::once(c.path.clone()).chain(c.rust_files.iter().map(|f| f.path.clone()))
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// One loaded card.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Card {
    /// The card file.
    pub path: PathBuf,
    /// The agent, with tool and hook references pointing at the adapter
    /// types generated for the referenced functions.
    pub spec: AgentSpec,
    /// The Rust type name of the agent.
    pub type_name: String,
    /// The module name of the generated file.
    pub module: String,
    /// The Rust files the card references. The build includes each file
    /// once for all cards, as a module of [`RUST_REFS_FILE`].
    pub rust_files: Vec<RustFile>,
    /// The adapters generated for referenced functions (tools and hooks).
    pub adapters: Vec<Adapter>,
    /// The file of the card's `deps:` type (canonical), if it has one. The
    /// card's module re-exports that file's module as `deps`, and the
    /// agent is built with `Agent::new(&deps::Type { .. })`.
    pub deps_file: Option<PathBuf>,
}

/// A referenced Rust file.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RustFile {
    /// Its path (canonical).
    pub path: PathBuf,
    /// The name the card's code gives its module (a lifecycle hook's type
    /// is `module::Type`); the card's module imports the file's build-wide
    /// module of [`RUST_REFS_FILE`] under this name where it needs it.
    pub module: String,
}

/// The generated adapter of one referenced function.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Adapter {
    /// `file.rs:function` as written in the card.
    pub reference: String,
    /// The referenced file (canonical).
    pub path: PathBuf,
    /// The referenced function.
    pub function: String,
    /// The adapter's type name in the card's module (the card's spec names
    /// it so). The build declares each adapter once, in
    /// [`RUST_REFS_FILE`], under a name unique in the whole build (the same
    /// unless two referenced functions give the same name), and the card's
    /// module imports it under this one.
    pub ident: String,
    /// The generated code (a tool or hook type) under the card's names,
    /// formatted.
    pub code: std::sync::Arc<str>,
    /// Whether it is a tool (else a hook).
    pub is_tool: bool,
    /// For a function that is a tool through its own `#[tool(..)]`
    /// attribute: its own hooks, approval rule and error mapping, in the
    /// order they run (innermost in every chain of the tool).
    pub own_chain: Vec<String>,
    /// The same own hooks and approval rule as the agent's policy shows
    /// them (`ToolDecl::OWN_HOOKS`, `ToolDecl::APPROVAL`).
    pub own_policy: (Vec<crate::spec::PolicyHook>, crate::spec::Approval),
    /// For a tool: its arguments as the model sends them, one JSON field
    /// per parameter (`Dep<T>` and the context are not arguments), with the
    /// parameter's Rust type as the file writes it.
    pub arguments: Vec<(String, String)>,
    /// For a tool: the arguments with a `#[default(value)]`, each with its
    /// value as the file writes it (the model may leave them out).
    pub argument_defaults: Vec<(String, String)>,
}

/// How environment references `${NAME}` are resolved.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Loads and checks every card of `dir`, resolving `${NAME}` from the
/// process environment.
pub fn load_dir(dir: &Path) -> Result<Cards, Vec<Diagnostic>> {
    load_dir_with_env(dir, &|name| std::env::var(name).ok())
}

pub use env::load_dir_with_env;
fn load_dir_resolved(dir: &Path, env: EnvLookup<'_>) -> Result<Cards, Vec<Diagnostic>> {
    let root = std::fs::canonicalize(dir).map_err(|e| {
        vec![Diagnostic::new(
            dir,
            None,
            1,
            1,
            1,
            format!("cannot read the cards folder: {e}"),
        )]
    })?;
    let files = card_files(&root).map_err(|e| {
        vec![Diagnostic::new(
            dir,
            None,
            1,
            1,
            1,
            format!("cannot read the cards folder: {e}"),
        )]
    })?;
    let shown = |p: &Path| shown_path(dir, p);
    let mut diags = Vec::new();
    let mut parsed = Vec::new();
    for file in &files {
        let display = shown(file);
        let real = match regular_card(&root, file) {
            Ok(real) => real,
            Err(e) => {
                diags.push(
                    Diagnostic::new(&display, None, 1, 1, 1, format!("card {}", e.why()))
                        .help(e.help()),
                );
                continue;
            }
        };
        match std::fs::read(real) {
            Ok(bytes) => match parse_card(&display, &bytes, env) {
                Ok(mut card) => {
                    diags.append(&mut card.unknown_keys);
                    parsed.push(card);
                }
                Err(mut ds) => diags.append(&mut ds),
            },
            Err(e) => diags.push(Diagnostic::new(
                &display,
                None,
                1,
                1,
                1,
                format!("cannot read card: {e}"),
            )),
        }
    }
    // A card that failed to parse still defines its name (its file stem), so
    // that references to it are not reported as unknown.
    let loaded: std::collections::HashSet<&Path> = parsed
        .iter()
        .map(|p: &fields::Parsed| p.display.as_path())
        .collect();
    let shown_files: Vec<PathBuf> = files.iter().map(|f| shown(f)).collect();
    let broken: Vec<String> = shown_files
        .iter()
        .filter(|f| !loaded.contains(f.as_path()))
        .filter_map(|f| f.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    if let Some(lock) = servers::read_lock(&root, dir, &mut diags) {
        for p in &mut parsed {
            p.spec.mcp_lock = Some(lock.clone());
        }
    }
    cross::cross_check(&parsed, &broken, &mut diags);
    let coverage = servers::check_servers(&root, dir, &parsed, &mut diags);
    let mut cards = Vec::new();
    let mut rust_cache = rust::Cache::default();
    for p in parsed {
        match rust::resolve(&root, dir, p, &mut rust_cache) {
            Ok(card) => cards.push(card),
            Err(mut ds) => diags.append(&mut ds),
        }
    }
    servers::check_coverage(&coverage, &mut cards, &mut diags);
    if diags.is_empty() {
        let shared = rust::shared(&root, &cards, &mut rust_cache)?;
        Ok(Cards {
            root,
            cards,
            shared,
        })
    } else {
        diags.sort_by(|a, b| (&a.path, a.line, a.col).cmp(&(&b.path, b.line, b.col)));
        Err(diags)
    }
}

/// The one rule for every file `cardgen` reads from the cards folder
/// `root` (canonical): cards, referenced `.rs` files and the server
/// configuration. Its real path, symlinks resolved, must lie inside the
/// folder; the file is not read otherwise (so nothing of it is shown).
/// `Err` says why, after the file's name (`` `a.md` lies outside ..``).
pub(crate) fn inside_root(root: &Path, path: &Path) -> Result<PathBuf, String> {
    let name = path.strip_prefix(root).unwrap_or(path).display();
    match std::fs::canonicalize(path) {
        Ok(real) if real.starts_with(root) => Ok(real),
        Ok(real) => Err(format!(
            "`{name}` lies outside the cards folder (it resolves to {})",
            real.display()
        )),
        Err(e) => Err(format!("`{name}` cannot be resolved: {e}")),
    }
}

/// Why a card file is not read.
enum CardFileError {
    /// It lies outside the cards folder.
    Outside(String),
    /// It is not a regular file (a folder, a FIFO, a socket, a device).
    NotRegular(String),
    /// It cannot be found: a symlink that points to nothing.
    Missing(String),
}

impl CardFileError {
    /// Why, after the file's name.
    fn why(&self) -> &str {
        match self {
            Self::Outside(why) | Self::NotRegular(why) | Self::Missing(why) => why,
        }
    }

    /// How to fix it.
    fn help(&self) -> &'static str {
        match self {
            Self::Outside(_) => {
                "symlinks must not point out of the cards folder; copy the card in instead"
            }
            Self::NotRegular(_) => {
                "a card is a regular file; remove it, or rename it so that it does not end in \
                 `.md`, `.yaml` or `.yml`"
            }
            Self::Missing(_) => {
                "a symlink that points to nothing: point it at a card, or remove it"
            }
        }
    }
}

/// The real path of the card `path` of the folder `root`, if it may be read:
/// [`inside_root`], and a regular file. Nothing is opened to find out (a
/// FIFO would block).
fn regular_card(root: &Path, path: &Path) -> Result<PathBuf, CardFileError> {
    let name = path.strip_prefix(root).unwrap_or(path).display();
    if let Err(e) = std::fs::metadata(path) {
        return Err(CardFileError::Missing(format!(
            "`{name}` cannot be read: {e}"
        )));
    }
    let real = inside_root(root, path).map_err(CardFileError::Outside)?;
    match std::fs::metadata(&real) {
        Ok(meta) if meta.is_file() => Ok(real),
        Ok(meta) => Err(CardFileError::NotRegular(format!(
            "`{name}` is {}, not a regular file",
            file_kind(meta.file_type())
        ))),
        Err(e) => Err(CardFileError::Missing(format!(
            "`{name}` cannot be read: {e}"
        ))),
    }
}

/// What kind of file `t` is, for messages (`a FIFO`).
fn file_kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "a special file"
    }
}

/// The card files of the folder `root`, sorted: every entry whose name is
/// a card's, whatever it is (a dangling symlink or a FIFO is reported by
/// [`load_dir`], never skipped).
fn card_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| is_card_file(p))
        .collect();
    files.sort();
    Ok(files)
}

/// A card's path as the user wrote the folder (not canonicalized): what
/// diagnostics and [`Card::path`] show.
fn shown_path(dir: &Path, file: &Path) -> PathBuf {
    dir.join(file.file_name().unwrap_or_default())
}

/// The cards of `dir` as [`load_dir`] would name them, in its order;
/// `None` if the folder cannot be read.
fn card_paths(dir: &Path) -> Option<Vec<PathBuf>> {
    let root = std::fs::canonicalize(dir).ok()?;
    let files = card_files(&root).ok()?;
    Some(files.iter().map(|f| shown_path(dir, f)).collect())
}

/// Loads the cards `paths` (as [`Card::path`] names them, in `dir`)
/// without the checks across cards: for a share of a folder that
/// [`load_dir`] has checked already. `None` on any error.
fn load_files(dir: &Path, paths: &[PathBuf]) -> Option<Vec<Card>> {
    let root = std::fs::canonicalize(dir).ok()?;
    let env = |name: &str| std::env::var(name).ok();
    let mut cache = rust::Cache::default();
    paths
        .iter()
        .map(|display| {
            let real = regular_card(&root, &root.join(display.file_name()?)).ok()?;
            let bytes = std::fs::read(real).ok()?;
            let parsed = parse_card(display, &bytes, &env).ok()?;
            rust::resolve(&root, dir, parsed, &mut cache).ok()
        })
        .collect()
}

/// The MCP server configuration files `cardgen` looks for next to the
/// cards, in this order (the runtime's `hookwire::mcp::McpConfig` format:
/// a `servers:` mapping from name to server).
pub const SERVER_CONFIG_FILES: [&str; 3] = ["hookwire.yaml", "hookwire.yml", "hookwire.json"];

/// Whether `p` names a card: `.md`, `.yaml` or `.yml` in any case, but not
/// a README, a hidden file or the server configuration
/// ([`SERVER_CONFIG_FILES`]).
fn is_card_file(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    // The server configuration under its exact name (what
    // `check_servers` reads); `HOOKWIRE.YAML` is read as a card, not
    // skipped.
    let is_config = p
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| SERVER_CONFIG_FILES.contains(&n));
    if name == "readme.md" || name.starts_with('.') || is_config {
        return false;
    }
    is_md(p) || has_extension(p, &["yaml", "yml"])
}

/// Whether `p`'s extension is one of `exts` (lower case), in any case.
fn has_extension(p: &Path, exts: &[&str]) -> bool {
    p.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .is_some_and(|e| exts.contains(&e.as_str()))
}

/// Whether `p` is a Markdown card (`.md` in any case).
pub(crate) fn is_md(p: &Path) -> bool {
    has_extension(p, &["md"])
}

/// Checks one card from its bytes, without the file system: frontmatter,
/// `${ENV}` (every variable unset unless it has a default), YAML and every
/// field. Cross-card checks and `file.rs:function` references need the
/// folder and are done by [`load_dir`]. `file_name` picks the format
/// (`.md`, `.yaml` or `.yml`) and names the file in diagnostics.
pub fn check_card(file_name: &Path, bytes: &[u8]) -> Result<AgentSpec, Vec<Diagnostic>> {
    let parsed = parse_card(file_name, bytes, &|_| None)?;
    if !parsed.unknown_keys.is_empty() {
        return Err(parsed.unknown_keys);
    }
    Ok(parsed.spec)
}

/// The body of the fuzz target (`codegen-cli/fuzz`), also run over its seed
/// corpus by a normal test: the first byte picks the format, the rest is
/// the card. Every diagnostic is rendered. It must never panic.
#[doc(hidden)]
pub fn fuzz_one(data: &[u8]) {
    let (name, bytes) = match data.split_first() {
        Some((b, rest)) if b % 2 == 0 => ("card.md", rest),
        Some((_, rest)) => ("card.yaml", rest),
        None => ("card.md", data),
    };
    match check_card(Path::new(name), bytes) {
        Ok(spec) => {
            let _ = crate::emit::type_name_for(&spec.name);
        }
        Err(diags) => {
            for d in diags {
                let _ = d.to_string();
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        for path in [
            &[Seg::Key("name")][..],
            &[Seg::Key("tool_hooks"), Seg::Index(1), Seg::Key("match")],
            &[Seg::Key("hooks"), Seg::Index(0), Seg::Key("hook")],
            &[Seg::Key("agents"), Seg::Index(3)],
            &[Seg::Index(0), Seg::Index(0)],
        ] {
            let _ = yaml::locate(text, path);
        }
    }
}
