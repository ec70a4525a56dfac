//! Writing the generated files: staged beside their targets, then renamed,
//! only where the content changed.

use super::*;

/// A generated file on its way into the output folder.
#[derive(Debug)]
pub(super) enum Staged {
    /// The folder has it already, byte for byte.
    Unchanged(PathBuf),
    /// Written to `tmp` (next to `path`), not yet renamed over it.
    Pending { tmp: PathBuf, path: PathBuf },
}

/// The suffix of this process's temporary files.
pub(super) fn tmp_suffix() -> String {
    format!(".cardgen-tmp-{}", std::process::id())
}

/// Writes each of `files` that `out` does not hold already to a temporary
/// file in `out`. On error, the temporary files written so far are removed.
pub(super) fn stage_all(out: &Path, files: &[GeneratedFile]) -> io::Result<Vec<Staged>> {
    let suffix = tmp_suffix();
    let mut staged = Vec::with_capacity(files.len());
    for f in files {
        let path = out.join(&f.name);
        if std::fs::read(&path).is_ok_and(|old| old == f.content.as_bytes()) {
            staged.push(Staged::Unchanged(path));
            continue;
        }
        let tmp = out.join(format!(".{}{suffix}", f.name));
        if let Err(e) = std::fs::write(&tmp, &f.content) {
            let _ = std::fs::remove_file(&tmp);
            unstage(&staged);
            return Err(e);
        }
        staged.push(Staged::Pending { tmp, path });
    }
    Ok(staged)
}

/// Removes the temporary files of `staged`.
pub(super) fn unstage(staged: &[Staged]) {
    for s in staged {
        if let Staged::Pending { tmp, .. } = s {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Renames every staged file over its place (each rename is atomic), then
/// removes stale generated files: `.rs` files of `out` with cardgen's
/// header that are not among `names`.
pub(super) fn commit(out: &Path, staged: Vec<Staged>, names: &[&str]) -> io::Result<BuildReport> {
    let mut report = BuildReport::default();
    let mut rest = staged.into_iter();
    while let Some(s) = rest.next() {
        match s {
            Staged::Unchanged(path) => report.unchanged.push(path),
            Staged::Pending { tmp, path } => {
                if let Err(e) = std::fs::rename(&tmp, &path) {
                    let _ = std::fs::remove_file(&tmp);
                    unstage(rest.as_slice());
                    return Err(e);
                }
                report.written.push(path);
            }
        }
    }
    let names: std::collections::HashSet<&str> = names.iter().copied().collect();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(out)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !name.ends_with(".rs") || names.contains(name.as_str()) {
            continue;
        }
        let is_ours = std::fs::read_to_string(&path).is_ok_and(|s| s.starts_with(HEADER));
        if is_ours {
            std::fs::remove_file(&path)?;
            report.removed.push(path);
        }
    }
    Ok(report)
}

/// Writes `files` into `out`: each atomically (a temporary file renamed over
/// the old one), only where the content changed; stale generated files
/// (with cardgen's header) are removed.
pub fn write_all(out: &Path, files: &[GeneratedFile]) -> io::Result<BuildReport> {
    std::fs::create_dir_all(out)?;
    let staged = stage_all(out, files)?;
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    commit(out, staged, &names)
}
