//! [`ModelError`]: why a model call failed, and whether asking again may
//! help.

use serde::{Deserialize, Serialize};

/// Why a model call failed.
#[derive(Debug, Clone, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelError {
    /// A scripted model has no turn left.
    #[error("the script of model `{model}` ran out after {played} turn(s)")]
    ScriptExhausted {
        /// The model's name.
        model: String,
        /// How many turns were played.
        played: usize,
    },
    /// A scripted turn's expectation did not hold.
    #[error("scripted turn {turn} of model `{model}` expected {expected}, but {found}")]
    ScriptMismatch {
        /// The model's name.
        model: String,
        /// The turn's index (0-based).
        turn: usize,
        /// What the turn expected.
        expected: String,
        /// What the request had.
        found: String,
    },
    /// A script could not be read.
    #[error("invalid model script: {0}")]
    InvalidScript(String),
    /// The model service could not be reached or answered with an error.
    #[error("model request failed: {0}")]
    Transport(String),
    /// The model service answered with something that is not a valid response.
    #[error("invalid model response: {0}")]
    InvalidResponse(String),
    /// The model is not configured (for example a missing API key).
    #[error("model not configured: {0}")]
    Config(String),
    /// The model service answered with an HTTP error status. A 429 or a
    /// 5xx is retried by the runner (see [`RetryPolicy`](crate::hooks::RetryPolicy)).
    #[error("model request failed: HTTP {status}: {body}")]
    Http {
        /// The status code.
        status: u16,
        /// The start of the response body.
        body: String,
        /// How long the service asked to wait (`Retry-After`,
        /// `retry-after-ms`), in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
    },
    /// A model string names a provider whose feature is off in this build.
    #[error(
        "model `{spec}` needs hookwire's `{feature}` feature, which is off in this build: add it to the `hookwire` dependency's `features` in Cargo.toml"
    )]
    FeatureOff {
        /// The model string.
        spec: String,
        /// The feature to turn on.
        feature: String,
    },
    /// A model string names a provider this build does not know.
    #[error(
        "unknown model provider `{provider}` in `{spec}`{}; known: {known}",
        suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
    )]
    UnknownProvider {
        /// The provider named.
        provider: String,
        /// The whole model string.
        spec: String,
        /// The nearest known prefix, if one is near.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        suggestion: Option<String>,
        /// The providers this build knows, comma-separated.
        known: String,
    },
    /// A provider's API key is not set.
    #[error("model `{spec}` needs an API key: set {env}")]
    MissingKey {
        /// The model string.
        spec: String,
        /// The environment variable to set.
        env: String,
    },
    /// The service did not answer within the request timeout
    /// (`OpenAiConfig::timeout`, `ProviderConfig::timeout`). Retried like
    /// a lost connection.
    #[error("model request timed out: no answer within {after_ms} ms")]
    TimedOut {
        /// The timeout, in milliseconds.
        after_ms: u64,
    },
    /// The service asked to wait longer before asking again (`Retry-After`)
    /// than the retry policy's cap ([`RetryPolicy::max_delay`](crate::hooks::RetryPolicy)):
    /// the call is not retried sooner than asked, it fails with this error.
    #[error(
        "the model service asked to wait {} s before asking again, over the retry cap of {} s \
         (raise it with `RetryPolicy::with_delays`): {error}",
        secs(*asked_ms),
        secs(*cap_ms)
    )]
    RetryAfterOverCap {
        /// How long the service asked to wait, in milliseconds.
        asked_ms: u64,
        /// The policy's longest wait, in milliseconds.
        cap_ms: u64,
        /// The error that asked for the wait.
        error: Box<ModelError>,
    },
}

/// Milliseconds as seconds, for messages (`1.5`, `30`).
fn secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{:.1}", ms as f64 / 1000.0)
    }
}

impl ModelError {
    /// Whether asking again may succeed: a transport error, a timeout, an
    /// HTTP 408, 409, 429 or 5xx.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Transport(_) | Self::TimedOut { .. } => true,
            Self::Http { status, .. } => matches!(status, 408 | 409 | 429) || *status >= 500,
            _ => false,
        }
    }

    /// How long the service asked to wait before asking again, if it said.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            Self::Http {
                retry_after_ms: Some(ms),
                ..
            } => Some(std::time::Duration::from_millis(*ms)),
            _ => None,
        }
    }
}
