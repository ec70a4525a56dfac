//! Generating many cards on several threads, with the same output as one.

use super::*;

/// How many threads generate `n` cards: one per core, at most one per
/// hundred cards.
pub(super) fn threads_for(n: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(n / 100)
        .max(1)
}

/// The stack of the threads that load cards (`cardgen`, [`crate::Builder`]
/// and the worker threads of a build): the Rust files it parses may nest up to
/// 100 levels (the limit `cardgen check` enforces), which `syn` (recursive descent)
/// needs a few megabytes for in a debug build; the default 2 MiB is not
/// enough. Only the pages used are committed.
pub const STACK_SIZE: usize = 64 << 20;

/// Runs `f` on a new scoped thread with [`STACK_SIZE`]; `None` if the
/// thread cannot be made (its work is then done on the calling thread).
pub(super) fn worker<'scope, 'env, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> Option<std::thread::ScopedJoinHandle<'scope, T>> {
    std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn_scoped(scope, f)
        .ok()
}

/// Every `threads`-th item of `items`, starting at `part`.
pub(super) fn share<T>(items: &[T], part: usize, threads: usize) -> impl Iterator<Item = &T> {
    items.iter().skip(part).step_by(threads.max(1))
}

/// The cards a share holds: (path, agent name), in order.
pub(super) type ShareIds = Vec<(PathBuf, String)>;

pub(super) fn share_ids<'a>(cards: impl Iterator<Item = &'a Card>) -> ShareIds {
    cards
        .map(|c| (c.path.clone(), c.spec.name.clone()))
        .collect()
}

/// What a worker thread made of its share of the card files: the cards it
/// loaded (to compare with what the checked load holds) and their parts.
/// `None` if a card did not load.
pub(super) type SharePart = Option<(ShareIds, Result<Vec<CardPart>, Vec<Diagnostic>>)>;

/// Loads the cards `paths` of `dir` on this thread (without the checks
/// across cards) and generates their parts. The token trees of loaded cards
/// cannot cross threads, so each worker loads its own share.
pub(super) fn load_and_generate(dir: &Path, paths: &[PathBuf]) -> SharePart {
    let own = super::super::load_files(dir, paths)?;
    Some((share_ids(own.iter()), card_parts(own.iter())))
}

/// A worker's parts, finished with `names`; `None` if the worker loaded
/// other cards than `expected` (the folder changed meanwhile), failed, or
/// made a part that `names` cannot finish.
pub(super) fn finish_share(
    made: SharePart,
    expected: &ShareIds,
    names: &rust::Names,
) -> Option<Result<Vec<GeneratedFile>, Vec<Diagnostic>>> {
    match made {
        Some((ids, Ok(parts))) if ids == *expected => parts
            .into_iter()
            .map(|p| p.finish(names))
            .collect::<Option<Vec<_>>>()
            .map(Ok),
        Some((ids, Err(diags))) if ids == *expected => Some(Err(diags)),
        _ => None,
    }
}

/// Puts the parts (part `i` holds every `parts.len()`-th card from `i`)
/// back into card order.
pub(super) fn interleave<T>(parts: Vec<Vec<T>>) -> Vec<T> {
    let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    let mut iters: Vec<_> = parts.into_iter().map(Vec::into_iter).collect();
    'outer: loop {
        for it in &mut iters {
            match it.next() {
                Some(x) => out.push(x),
                None => break 'outer,
            }
        }
    }
    for it in iters {
        out.extend(it);
    }
    out
}

/// [`generate`] for the cards of `dir`, on every core. The cards were
/// loaded and checked on this thread; each extra thread loads again only
/// the card files of its own share (every `threads`-th card: no cross-card
/// checks, those were done) and generates them. The result is the same as
/// [`generate`]'s; a share whose cards changed on disk meanwhile is
/// generated here instead.
pub fn generate_parallel(
    dir: &Path,
    cards: &Cards,
    opts: &BuildOptions,
) -> Result<Vec<GeneratedFile>, Vec<Diagnostic>> {
    let threads = threads_for(cards.cards.len());
    if threads == 1 {
        return generate(cards, opts);
    }
    let paths: Vec<PathBuf> = cards.cards.iter().map(|c| c.path.clone()).collect();
    let paths = &paths;
    let names = &*cards.shared.names;
    let (mine, theirs) = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads)
            .map(|part| {
                worker(scope, move || {
                    let wanted: Vec<PathBuf> = share(paths, part, threads).cloned().collect();
                    load_and_generate(dir, &wanted)
                })
            })
            .collect();
        let mine =
            card_parts(share(&cards.cards, 0, threads)).and_then(|parts| finish_all(parts, names));
        let theirs: Vec<SharePart> = workers
            .into_iter()
            .map(|w| w.and_then(|w| w.join().ok()).flatten())
            .collect();
        (mine, theirs)
    });
    let mut parts = vec![mine?];
    for (i, part) in theirs.into_iter().enumerate() {
        let expected = share_ids(share(&cards.cards, i + 1, threads));
        match finish_share(part, &expected, names) {
            Some(files) => parts.push(files?),
            // The folder changed under us, or a worker failed: do its share here.
            None => parts.push(finish_all(
                card_parts(share(&cards.cards, i + 1, threads))?,
                names,
            )?),
        }
    }
    let mut files = interleave(parts);
    files.extend(shared_files(cards, opts)?);
    Ok(files)
}
