//! The adapters of one load: each referenced function lowered once into
//! `__rust_refs`, shared by every card that names it.

use super::*;

/// The build-wide names of the shared Rust references: what a card's module
/// imports. Plain strings, so worker threads can use it.
#[derive(Debug, Default)]
pub(crate) struct Names {
    /// File (canonical) -> its module in the shared module.
    pub(crate) modules: HashMap<PathBuf, String>,
    /// Adapter -> its type name in the shared module.
    pub(crate) adapters: HashMap<AdapterKey, String>,
}

/// One adapter of the shared module.
#[derive(Debug, Clone)]
pub(crate) struct SharedAdapter {
    /// Its code under its build-wide names, formatted.
    pub(crate) code: Arc<str>,
}

/// Every Rust file the cards of a folder reference, and the adapters of
/// their referenced functions, each once, in the order the cards first
/// reference them (so the same cards give the same names).
#[derive(Debug, Clone, Default)]
pub(crate) struct Shared {
    /// (file (canonical), module), in first-reference order.
    pub(crate) files: Vec<(PathBuf, String)>,
    /// The adapters, in first-reference order.
    pub(crate) adapters: Vec<SharedAdapter>,
    /// The names, for the cards' imports.
    pub(crate) names: Arc<Names>,
    /// The files some card names in `deps:`: their modules are public, so
    /// that the cards' modules can re-export them.
    pub(crate) deps_files: HashSet<PathBuf>,
}

/// The shared references of `cards` (all loaded from `root` with `cache`):
/// each file's module is named after its path in the cards folder, each
/// adapter after its function (`add_one` -> `AddOneTool`, `audit` ->
/// `AuditHook`), made unique in first-reference order. An adapter whose
/// build-wide names are those some card gave it is not lowered again.
pub(crate) fn shared(
    root: &Path,
    cards: &[Card],
    cache: &mut Cache,
) -> Result<Shared, Vec<Diagnostic>> {
    let mut out = Shared::default();
    let mut names = Names::default();
    let mut taken_modules = HashSet::new();
    let mut taken_idents = HashSet::new();
    for card in cards {
        out.deps_files.extend(card.deps_file.iter().cloned());
        for f in &card.rust_files {
            if names.modules.contains_key(&f.path) {
                continue;
            }
            let rel = f.path.strip_prefix(root).unwrap_or(&f.path);
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let module = module_for_file(&rel, &mut taken_modules);
            names.modules.insert(f.path.clone(), module.clone());
            out.files.push((f.path.clone(), module));
        }
        for a in &card.adapters {
            let key: AdapterKey = (a.path.clone(), a.function.clone(), a.is_tool);
            if names.adapters.contains_key(&key) {
                continue;
            }
            let ident = unique(adapter_base(&a.function, a.is_tool), &mut taken_idents);
            let module = names.modules.get(&a.path).cloned().unwrap_or_default();
            let lkey: LoweredKey = (
                a.path.clone(),
                a.function.clone(),
                a.is_tool,
                ident.clone(),
                module.clone(),
            );
            let code = match cache.lowered.get(&lkey) {
                Some(Some(code)) => code.clone(),
                _ => {
                    let lowered =
                        cache
                            .files
                            .get(&a.path)
                            .and_then(|f| f.clone())
                            .and_then(|file| {
                                find_fn(&file, &a.function).map(|item| {
                                    lower_adapter(&file, item, a.is_tool, &ident, &module)
                                })
                            });
                    match lowered {
                        Some(Ok(code)) => {
                            cache.lowered.insert(lkey, Some(code.clone()));
                            code
                        }
                        Some(Err(e)) => {
                            return Err(vec![Diagnostic::new(
                                &card.path,
                                None,
                                1,
                                1,
                                1,
                                format!("cannot generate the adapter of `{}`: {e}", a.reference),
                            )]);
                        }
                        None => {
                            return Err(vec![Diagnostic::new(
                                &card.path,
                                None,
                                1,
                                1,
                                1,
                                format!("`{}` changed while the cards were loaded", a.reference),
                            )]);
                        }
                    }
                }
            };
            names.adapters.insert(key, ident);
            out.adapters.push(SharedAdapter { code });
        }
    }
    out.names = Arc::new(names);
    Ok(out)
}

/// The name an adapter of `function` starts from: `add_one` -> `AddOneTool`,
/// `audit` -> `AuditHook` (`audit_hook` too).
pub(super) fn adapter_base(function: &str, is_tool: bool) -> String {
    let suffix = if is_tool { "Tool" } else { "Hook" };
    let base = pascal(function);
    if base.ends_with(suffix) {
        base
    } else {
        format!("{base}{suffix}")
    }
}

/// The module a referenced file is included as in a card's generated file
/// (each file once per card).
pub(super) fn include_file(
    rust_files: &mut Vec<RustFile>,
    modules: &mut HashSet<String>,
    canonical: &Path,
    file: &str,
) -> String {
    if let Some(f) = rust_files.iter().find(|f| f.path == canonical) {
        return f.module.clone();
    }
    let m = module_for_file(file, modules);
    rust_files.push(RustFile {
        path: canonical.to_owned(),
        module: m.clone(),
    });
    m
}
