//! A model service's error, made safe to keep before it reaches the run's
//! error, its trace, logs and spans: the model's secrets taken out
//! ([`redact`](crate::secret::redact): its key, and any header-like
//! `authorization:` / `x-api-key:` / `Bearer ...`), then bounded and
//! escaped ([`clean`](crate::outside::clean), at
//! [`ERROR_BODY_LIMIT`](crate::outside::ERROR_BODY_LIMIT)).

use super::ModelError;
use crate::outside::{ERROR_BODY_LIMIT, clean};
use crate::secret::redact;

impl ModelError {
    /// This error with every text from the service redacted (the values
    /// of `secrets` and header-like patterns), bounded and escaped.
    #[cfg_attr(not(any(feature = "openai", feature = "providers")), allow(dead_code))]
    pub(crate) fn scrubbed(self, secrets: &[&str]) -> Self {
        let keep = |text: String| clean(&redact(&text, secrets), ERROR_BODY_LIMIT);
        match self {
            Self::Transport(text) => Self::Transport(keep(text)),
            Self::InvalidResponse(text) => Self::InvalidResponse(keep(text)),
            Self::Config(text) => Self::Config(keep(text)),
            Self::Http {
                status,
                body,
                retry_after_ms,
            } => Self::Http {
                status,
                body: keep(body),
                retry_after_ms,
            },
            other => other,
        }
    }
}

/// Whether `error` or one of its sources is a timeout (reqwest's, or an
/// I/O error of kind `TimedOut`).
#[cfg(any(feature = "openai", feature = "providers"))]
pub(crate) fn timed_out(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(e) = next {
        if let Some(r) = e.downcast_ref::<reqwest::Error>()
            && r.is_timeout()
        {
            return true;
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::TimedOut
        {
            return true;
        }
        next = e.source();
    }
    false
}

/// A failed request or read: [`ModelError::TimedOut`] when the timeout
/// fired, else [`ModelError::Transport`] with the error and its sources.
#[cfg(any(feature = "openai", feature = "providers"))]
pub(crate) fn transport(
    error: &(dyn std::error::Error + 'static),
    timeout: std::time::Duration,
) -> ModelError {
    if timed_out(error) {
        return ModelError::TimedOut {
            after_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
        };
    }
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = e.source();
    }
    ModelError::Transport(text)
}
