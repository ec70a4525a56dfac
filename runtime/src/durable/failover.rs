//! The ingress addresses of a [`DurableClient`](super::DurableClient) and
//! the rule for moving from one to another: a request goes to the address
//! that answered last; when it fails before an answer, it goes to the next
//! address only if that cannot run it twice.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::client::ClientError;

/// Whether a request may be sent again through another node after a
/// failure that leaves open whether the first node received it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Replay {
    /// Sending it twice does what sending it once does: a read, or a
    /// request with an `idempotency-key` (the server deduplicates it).
    Safe,
    /// A second copy could run again (a start without an idempotency
    /// key): only a request refused before any byte was sent moves on.
    Once,
}

/// Why one attempt on one address failed.
pub(super) enum Failure {
    /// Nothing was sent: the connection was refused or not made in time.
    NotSent(ClientError),
    /// The request was sent (or partly sent) and no full answer came: the
    /// connection broke.
    MaybeReceived(ClientError),
    /// An answer, a timeout, or a request refused before any address was
    /// tried: final.
    Final(ClientError),
}

impl Failure {
    /// The failure of `error`, a transport error of a request to `url`
    /// whose limit was `limit`.
    pub(super) fn of(error: &reqwest::Error, url: &str, limit: Duration) -> Self {
        if error.is_timeout() && !error.is_connect() {
            return Self::Final(ClientError::TimedOut {
                url: url.to_owned(),
                after: limit,
            });
        }
        let unreachable = ClientError::Unreachable {
            url: url.to_owned(),
            message: error_chain(error),
        };
        if error.is_connect() {
            Self::NotSent(unreachable)
        } else {
            Self::MaybeReceived(unreachable)
        }
    }
}

/// The ingress addresses, and which one answered last (shared by the
/// client's clones).
#[derive(Debug, Clone)]
pub(super) struct Ingresses {
    urls: Arc<[String]>,
    current: Arc<AtomicUsize>,
}

impl Ingresses {
    /// The addresses `urls` (at least one), without trailing slashes.
    pub(super) fn new(urls: Vec<String>) -> Self {
        Self {
            urls: urls
                .into_iter()
                .map(|u| u.trim_end_matches('/').to_owned())
                .collect(),
            current: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// These addresses and `url`.
    pub(super) fn with(&self, url: String) -> Self {
        let mut urls = self.urls.to_vec();
        urls.push(url);
        Self::new(urls)
    }

    /// All of them, in order.
    pub(super) fn all(&self) -> &[String] {
        &self.urls
    }

    /// The one the next request goes to first.
    pub(super) fn current(&self) -> &str {
        let i = self.current.load(Ordering::Relaxed) % self.urls.len().max(1);
        self.urls.get(i).map_or("", String::as_str)
    }

    /// The addresses in the order to try them: the current one first.
    pub(super) fn in_turn(&self) -> impl Iterator<Item = (usize, &str)> {
        let n = self.urls.len();
        let first = self.current.load(Ordering::Relaxed);
        (0..n).map(move |k| {
            let i = (first + k) % n;
            (i, self.urls[i].as_str())
        })
    }

    /// Address `i` answered: the next request goes there first.
    pub(super) fn answered(&self, i: usize) {
        self.current.store(i, Ordering::Relaxed);
    }
}

/// The error for a request of kind `replay` whose attempt ended with
/// `failure`, and whether the next address may be tried. With `several`
/// addresses, a request that may have arrived and must not run twice is
/// reported as [`ClientError::MaybeReceived`].
pub(super) fn next_step(replay: Replay, failure: Failure, several: bool) -> (ClientError, bool) {
    match failure {
        Failure::NotSent(e) => (e, true),
        Failure::MaybeReceived(e) if replay == Replay::Safe => (e, true),
        Failure::MaybeReceived(e) if several => (
            ClientError::MaybeReceived {
                url: e.url().to_owned(),
                message: e.to_string(),
            },
            false,
        ),
        Failure::MaybeReceived(e) | Failure::Final(e) => (e, false),
    }
}

/// A new idempotency key (`hookwire-` and 32 hex digits): 128 bits keyed
/// by the process's random hash keys, never the same twice.
pub(super) fn fresh_key() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let half = || {
        // Each `RandomState` has keys of its own (seeded from the OS).
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(nanos);
        hasher.write_u32(std::process::id());
        hasher.finish()
    };
    format!("hookwire-{:016x}{:016x}", half(), half())
}

/// An error's text and its sources'.
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}
