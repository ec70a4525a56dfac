//! `genai`'s errors as ours.

use crate::model::ModelError;

/// A `genai` error as ours: an HTTP status (with `Retry-After`) as
/// [`ModelError::Http`] (its whole body: the model redacts and bounds it,
/// `ModelError::scrubbed`), a request that took longer than `timeout`
/// as [`ModelError::TimedOut`], a failed connection as
/// [`ModelError::Transport`], the rest as what it is.
pub(super) fn error(e: genai::Error, timeout: std::time::Duration) -> ModelError {
    let http = |e: &genai::Error| {
        let status = e.status()?;
        let header = |name: &str| {
            e.headers()
                .and_then(|h| h.get(name))
                .and_then(|v| v.to_str().ok())
        };
        let body = match e {
            genai::Error::HttpError { body, .. } => body.clone(),
            genai::Error::WebModelCall { webc_error, .. }
            | genai::Error::WebAdapterCall { webc_error, .. } => match webc_error {
                genai::webc::Error::ResponseFailedStatus { body, .. } => body.clone(),
                other => other.to_string(),
            },
            other => other.to_string(),
        };
        Some(ModelError::Http {
            status: status.as_u16(),
            body,
            retry_after_ms: crate::model::retry::retry_after_ms(
                header("retry-after"),
                header("retry-after-ms"),
            ),
        })
    };
    if let Some(mapped) = http(&e) {
        return mapped;
    }
    if let Some(inner) = reqwest_error(&e)
        && crate::model::scrub::timed_out(inner)
    {
        return crate::model::scrub::transport(inner, timeout);
    }
    match &e {
        // A stream's HTTP error arrives boxed inside the stream error.
        genai::Error::WebStream { error: inner, .. } => {
            match inner.downcast_ref::<genai::Error>().and_then(http) {
                Some(mapped) => mapped,
                None => ModelError::Transport(e.to_string()),
            }
        }
        genai::Error::WebModelCall { .. } | genai::Error::WebAdapterCall { .. } => {
            ModelError::Transport(e.to_string())
        }
        genai::Error::RequiresApiKey { .. }
        | genai::Error::NoAuthData { .. }
        | genai::Error::NoAuthResolver { .. }
        | genai::Error::Resolver { .. }
        | genai::Error::AdapterNotSupported { .. } => ModelError::Config(e.to_string()),
        _ => ModelError::InvalidResponse(e.to_string()),
    }
}

/// The error under a failed web call or stream of `genai`, for its kind
/// (a timeout).
fn reqwest_error(e: &genai::Error) -> Option<&(dyn std::error::Error + 'static)> {
    match e {
        genai::Error::WebModelCall { webc_error, .. }
        | genai::Error::WebAdapterCall { webc_error, .. } => match webc_error {
            genai::webc::Error::Reqwest(r) => Some(r),
            _ => None,
        },
        genai::Error::WebStream { error, .. } => match error.downcast_ref::<genai::Error>() {
            Some(inner) => reqwest_error(inner),
            None => Some(&**error),
        },
        _ => None,
    }
}
