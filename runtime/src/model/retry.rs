//! Retrying model calls: transport errors, timeouts, 429 and 5xx, as the
//! one [`RetryPolicy`] says (capped exponential backoff with jitter,
//! honouring `Retry-After`). A `Retry-After` longer than the policy's cap
//! (`max_delay`, 30 s by default) is not shortened: the call fails with
//! [`ModelError::RetryAfterOverCap`], which says what the service asked for
//! and what the cap is.

use super::{Model, ModelError, ModelRequest, ModelResponse};
use crate::hooks::RetryPolicy;

/// One retry of a model call, as the trace records it
/// ([`TraceEvent::ModelRetry`](crate::agent::TraceEvent::ModelRetry)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryNote {
    /// The retry's number: 1 for the second attempt.
    pub attempt: u32,
    /// How long it waited before asking again, in milliseconds.
    pub delay_ms: u64,
    /// The error of the attempt before.
    pub reason: String,
}

/// Asks `model`, asking again after a retryable error as `policy` says;
/// `on_retry` hears of each retry before its wait. Works for any model:
/// the HTTP ones report a 429 or 5xx as [`ModelError::Http`] and a lost
/// connection as [`ModelError::Transport`].
pub async fn complete_with_retry(
    model: &dyn Model,
    request: ModelRequest<'_>,
    policy: &RetryPolicy,
    on_retry: &mut (dyn FnMut(RetryNote) + Send),
) -> Result<ModelResponse, ModelError> {
    let mut retry = 0;
    loop {
        let answer = model.complete(request).await;
        let Err(error) = &answer else { return answer };
        let Some(delay) = policy.next(retry, error.is_retryable(), error.retry_after()) else {
            return answer;
        };
        if let Some(over) = over_cap(error, policy) {
            return Err(over);
        }
        retry += 1;
        on_retry(RetryNote {
            attempt: retry,
            delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            reason: error.to_string(),
        });
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
    }
}

/// A service that asked to wait longer than the policy's cap is not asked
/// again sooner: [`ModelError::RetryAfterOverCap`] says what it asked for
/// and what the cap is.
fn over_cap(error: &ModelError, policy: &RetryPolicy) -> Option<ModelError> {
    let asked = error.retry_after()?;
    (asked > policy.max_delay).then(|| {
        let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        ModelError::RetryAfterOverCap {
            asked_ms: ms(asked),
            cap_ms: ms(policy.max_delay),
            error: Box::new(error.clone()),
        }
    })
}

/// The wait a failed HTTP response asks for: `retry-after-ms` (OpenAI,
/// Azure, Anthropic), else `Retry-After` in seconds or as an HTTP date
/// (RFC 9110; a date in the past asks for no wait). A value that is none
/// of these is ignored (the backoff applies).
#[cfg(any(feature = "openai", feature = "providers"))]
pub(crate) fn retry_after_ms(
    retry_after: Option<&str>,
    retry_after_ms: Option<&str>,
) -> Option<u64> {
    retry_after_ms_at(retry_after, retry_after_ms, std::time::SystemTime::now())
}

/// [`retry_after_ms`] with the clock reading `now`.
#[cfg(any(feature = "openai", feature = "providers"))]
fn retry_after_ms_at(
    retry_after: Option<&str>,
    retry_after_ms: Option<&str>,
    now: std::time::SystemTime,
) -> Option<u64> {
    let millis = |ms: f64| (ms.is_finite() && ms >= 0.0).then_some(ms as u64);
    if let Some(ms) = retry_after_ms
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(millis)
    {
        return Some(ms);
    }
    let value = retry_after?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return millis(secs * 1000.0);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    let wait = date.duration_since(now).unwrap_or_default();
    Some(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, retry_after_ms: Option<u64>) -> ModelError {
        ModelError::Http {
            status,
            body: String::new(),
            retry_after_ms,
        }
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        use std::time::Duration;
        let p =
            RetryPolicy::default().with_delays(Duration::from_millis(100), Duration::from_secs(2));
        let next = |retry, e: ModelError| p.next(retry, e.is_retryable(), e.retry_after());
        assert_eq!(next(0, http(429, Some(0))), Some(Duration::ZERO));
        assert_eq!(
            next(2, http(429, Some(1500))),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            next(0, http(503, Some(60_000))),
            Some(Duration::from_secs(2))
        );
        assert_eq!(next(0, http(400, Some(10))), None);
        assert_eq!(next(3, http(429, None)), None);
    }

    #[test]
    fn what_is_retryable() {
        assert!(http(429, None).is_retryable());
        assert!(http(500, None).is_retryable());
        assert!(http(529, None).is_retryable());
        assert!(!http(400, None).is_retryable());
        assert!(!http(401, None).is_retryable());
        assert!(ModelError::Transport("x".into()).is_retryable());
        assert!(!ModelError::InvalidResponse("x".into()).is_retryable());
    }

    #[cfg(any(feature = "openai", feature = "providers"))]
    #[test]
    fn retry_after_headers_are_read_in_each_form() {
        use std::time::{Duration, SystemTime};
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_360);
        let at = |after: Option<&str>, ms: Option<&str>| retry_after_ms_at(after, ms, now);
        // Seconds.
        assert_eq!(at(Some("1"), None), Some(1000));
        assert_eq!(at(Some(" 0 "), None), Some(0));
        assert_eq!(at(Some("1.5"), None), Some(1500));
        // `retry-after-ms` first, whatever `Retry-After` says.
        assert_eq!(at(Some("1"), Some("250")), Some(250));
        assert_eq!(at(None, Some("20.7")), Some(20));
        assert_eq!(at(Some("2"), Some("soon")), Some(2000));
        // An HTTP date, against the clock: 07:28:00 is 120 s after `now`.
        assert_eq!(
            httpdate::fmt_http_date(now),
            "Wed, 21 Oct 2015 07:26:00 GMT"
        );
        assert_eq!(
            at(Some("Wed, 21 Oct 2015 07:28:00 GMT"), None),
            Some(120_000)
        );
        // The obsolete forms RFC 9110 still accepts.
        assert_eq!(
            at(Some("Wednesday, 21-Oct-15 07:28:00 GMT"), None),
            Some(120_000)
        );
        assert_eq!(at(Some("Wed Oct 21 07:28:00 2015"), None), Some(120_000));
        // A date in the past: ask again at once.
        assert_eq!(at(Some("Wed, 21 Oct 2015 07:25:59 GMT"), None), Some(0));
        assert_eq!(at(Some("Thu, 01 Jan 1970 00:00:00 GMT"), None), Some(0));
        // Garbage, negative or not finite: ignored.
        for bad in [
            "soon",
            "-3",
            "NaN",
            "inf",
            "",
            "Wed, 32 Oct 2015 07:28:00 GMT",
        ] {
            assert_eq!(at(Some(bad), None), None, "{bad:?}");
            assert_eq!(at(None, Some(bad)), None, "{bad:?}");
        }
        assert_eq!(at(None, None), None);
        // The real clock: a date an hour ahead asks for about an hour.
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(3600));
        let ms = retry_after_ms(Some(&later), None).unwrap();
        assert!((3_590_000..=3_600_000).contains(&ms), "{ms}");
    }
}
