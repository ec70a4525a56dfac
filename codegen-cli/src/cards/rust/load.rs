//! Reading and parsing a referenced `.rs` file, within bounds.

use super::*;

/// Checks the path rules and loads (or fetches from the cache) the file.
/// `None`: an error was reported. `Some((path, None))`: the file is broken
/// and was reported already.
pub(super) fn load_file(
    root: &Path,
    shown_dir: &Path,
    r: &RefSpec,
    cache: &mut Cache,
    at: &dyn Fn(String) -> Diagnostic,
    diags: &mut Vec<Diagnostic>,
) -> Option<(PathBuf, Option<Rc<RsFile>>)> {
    let rel = Path::new(&r.file);
    if rel.is_absolute()
        || r.file.starts_with(['/', '\\'])
        || rel
            .components()
            .any(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
    {
        diags.push(
            at(format!("absolute path `{}` in `{}`", r.file, r.text)).help(
                "reference files relative to the card's folder, for example `tools.rs:add_one`",
            ),
        );
        return None;
    }
    if rel.components().any(|c| matches!(c, Component::ParentDir)) {
        diags.push(
            at(format!(
                "`..` in `{}`: referenced files must be inside the cards folder",
                r.text
            ))
            .help("move the file next to the cards, or into a subfolder of it"),
        );
        return None;
    }
    let joined = root.join(rel);
    if std::fs::symlink_metadata(&joined).is_err() {
        diags.push(
            at(format!("file `{}` not found", r.file))
                .note(format!("looked for {}", shown_dir.join(rel).display())),
        );
        return None;
    }
    let canonical =
        match super::super::inside_root(root, &joined) {
            Ok(c) => c,
            Err(why) => {
                diags.push(at(why).help(
                    "symlinks must not point out of the cards folder; copy the file in instead",
                ));
                return None;
            }
        };
    if !canonical.is_file() {
        diags.push(at(format!("`{}` is not a file", r.file)));
        return None;
    }
    if let Some(cached) = cache.files.get(&canonical) {
        return Some((canonical, cached.clone()));
    }
    let display = shown_dir.join(rel);
    let loaded = match std::fs::read(&canonical) {
        Err(e) => {
            diags.push(at(format!("cannot read `{}`: {e}", r.file)));
            None
        }
        Ok(bytes) => match String::from_utf8(bytes) {
            Err(e) => {
                let bytes = e.as_bytes();
                let (line, col) = line_col(bytes, e.utf8_error().valid_up_to());
                let lossy = String::from_utf8_lossy(bytes);
                diags.push(
                    Diagnostic::new(
                        &display,
                        Some(&lossy),
                        line,
                        col,
                        1,
                        "Rust file is not valid UTF-8",
                    )
                    .note(format!("referenced as `{}`", r.text)),
                );
                None
            }
            Ok(text) => match parse_bounded(&text) {
                Ok(ast) => Some(Rc::new(RsFile::new(display.clone(), text, ast))),
                Err(Unparsed::Syntax(e)) => {
                    let start = e.span().start();
                    let (line, col) = if start.line == 0 {
                        (1, 1)
                    } else {
                        (start.line, start.column + 1)
                    };
                    diags.push(
                        Diagnostic::new(
                            &display,
                            Some(&text),
                            line,
                            col,
                            1,
                            format!("Rust file does not parse: {e}"),
                        )
                        .note(format!("referenced as `{}`", r.text)),
                    );
                    None
                }
                Err(Unparsed::TooDeep(line, col)) => {
                    diags.push(
                        Diagnostic::new(
                            &display,
                            Some(&text),
                            line,
                            col + 1,
                            1,
                            format!(
                                "Rust file nests too deeply here: more than {} levels of expressions or types",
                                super::super::depth::MAX_DEPTH
                            ),
                        )
                        .help("give the inner parts names (a `let`, a `type` alias, a function)")
                        .note(format!("referenced as `{}`", r.text)),
                    );
                    None
                }
            },
        },
    };
    cache.files.insert(canonical.clone(), loaded.clone());
    Some((canonical, loaded))
}

/// Why a Rust file was not read.
pub(super) enum Unparsed {
    Syntax(syn::Error),
    /// Nested deeper than [`super::super::depth::MAX_DEPTH`] at (line, 0-based
    /// column): not handed to `syn`, whose recursion would overflow the
    /// stack.
    TooDeep(usize, usize),
}

/// Parses `text` with `syn`, unless it nests too deeply for that.
pub(super) fn parse_bounded(text: &str) -> Result<syn::File, Unparsed> {
    // A lexing error is reported by `syn` below, with its position.
    if let Ok(tokens) = text.parse::<proc_macro2::TokenStream>()
        && let Some((line, col)) = super::super::depth::too_deep(tokens)
    {
        return Err(Unparsed::TooDeep(line, col));
    }
    syn::parse_file(text).map_err(Unparsed::Syntax)
}
