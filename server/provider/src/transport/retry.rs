//! Whether, and how long to wait, before trying a request again.

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};
use tandem_model::{Delta, Retrying};

use crate::{Limits, ProviderError, ProviderErrorKind};

/// The longest `Retry-After` honoured. A server asking for more (a daily quota, say) gets a
/// clear error now rather than a session that hangs.
pub(crate) const RETRY_AFTER_LIMIT: Duration = Duration::from_secs(60);

/// A failed attempt, and whether trying again may help.
#[derive(Debug)]
pub(crate) struct Failure {
    pub error: ProviderError,
    pub retry: Retry,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Retry {
    No,
    /// After the exponential backoff.
    Backoff,
    /// After exactly this long, as the server asked.
    After(Duration),
}

impl Failure {
    pub fn fatal(kind: ProviderErrorKind, message: impl Into<String>) -> Self {
        Self::from(ProviderError::new(kind, message))
    }

    pub fn retryable(kind: ProviderErrorKind, message: impl Into<String>) -> Self {
        Self {
            error: ProviderError::new(kind, message),
            retry: Retry::Backoff,
        }
    }
}

impl From<ProviderError> for Failure {
    fn from(error: ProviderError) -> Self {
        Self {
            error,
            retry: Retry::No,
        }
    }
}

/// Counts the failures of one request and spaces the attempts.
pub(crate) struct Retries<'a> {
    limits: &'a Limits,
    failures: u32,
}

impl<'a> Retries<'a> {
    pub fn new(limits: &'a Limits) -> Self {
        Self {
            limits,
            failures: 0,
        }
    }

    /// Sleeps before the next attempt, or returns the error to give up with (the tests' short
    /// form: the client's requests go through [`retrying!`], which tells each retry).
    #[cfg(test)]
    pub async fn wait_or_give_up(&mut self, failure: Failure) -> Result<(), ProviderError> {
        self.wait_telling(failure, &mut |_| {}).await
    }

    /// As [`Retries::wait_or_give_up`], and tells `on_delta` of each retry before its wait.
    pub async fn wait_telling(
        &mut self,
        failure: Failure,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<(), ProviderError> {
        self.failures += 1;
        let delay = match failure.retry {
            _ if self.failures > self.limits.max_retries => None,
            Retry::No => None,
            Retry::Backoff => Some(backoff(self.limits, self.failures - 1)),
            Retry::After(delay) => Some(delay),
        };
        match delay {
            Some(delay) => {
                on_delta(Delta::Retrying(Retrying {
                    retry: self.failures,
                    max_retries: self.limits.max_retries,
                    status: match failure.error.kind {
                        ProviderErrorKind::Status(status) => Some(status),
                        _ => None,
                    },
                    error: failure.error.message,
                    wait: delay,
                }));
                tokio::time::sleep(delay).await;
                Ok(())
            }
            None if self.failures > 1 => {
                let mut error = failure.error;
                error.message = format!("{} (tried {} times)", error.message, self.failures);
                Err(error)
            }
            None => Err(failure.error),
        }
    }
}

/// Tries `$attempt` (an expression that awaits one try and gives `Result<T, Failure>`) until it
/// succeeds, fails for good or the retries run out, waiting between tries as [`Retries`] says:
/// the one retry loop of the client's requests. A macro rather than a function taking an
/// `AsyncFnMut`: such a closure's future, holding the caller's borrows, is not provably `Send`.
/// With a third argument, an `on_delta` callback, each retry is told to it before its wait.
macro_rules! retrying {
    ($limits:expr, $attempt:expr) => {
        $crate::transport::retry::retrying!($limits, $attempt, &mut |_| {})
    };
    ($limits:expr, $attempt:expr, $on_delta:expr) => {{
        let mut retries = $crate::transport::retry::Retries::new($limits);
        loop {
            match $attempt {
                Ok(value) => break Ok(value),
                Err(failure) => {
                    if let Err(error) = retries.wait_telling(failure, $on_delta).await {
                        break Err(error);
                    }
                }
            }
        }
    }};
}
pub(crate) use retrying;

/// The wait before retry number `retry` (0-based): `initial_backoff` doubled each time, capped at
/// `max_backoff`, with "equal jitter" (half fixed, half random) so that clients that failed
/// together do not retry together, yet never retry at once.
pub(crate) fn backoff(limits: &Limits, retry: u32) -> Duration {
    let factor = 1u32.checked_shl(retry).unwrap_or(u32::MAX);
    let capped = limits
        .initial_backoff
        .saturating_mul(factor)
        .min(limits.max_backoff);
    let half = capped / 2;
    half + half.mul_f64(fastrand::f64())
}

/// What the server asked us to wait: `retry-after-ms` (OpenAI), else `Retry-After` in seconds
/// or as an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header(RETRY_AFTER.as_str())?;
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0)
            .then(|| Duration::try_from_secs_f64(seconds).ok())
            .flatten();
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_in_seconds_ms_or_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        let cases = [
            (
                headers(&[("retry-after", "2")]),
                Some(Duration::from_secs(2)),
            ),
            (headers(&[("retry-after", "0")]), Some(Duration::ZERO)),
            (
                headers(&[("retry-after", "1.5")]),
                Some(Duration::from_millis(1500)),
            ),
            (
                headers(&[("retry-after", &later)]),
                Some(Duration::from_secs(30)),
            ),
            (
                headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]),
                Some(Duration::ZERO),
            ),
            (
                headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                Some(Duration::from_millis(250)),
            ),
            (headers(&[("retry-after", "soon")]), None),
            (headers(&[("retry-after", "-1")]), None),
            (headers(&[]), None),
        ];
        for (map, expected) in cases {
            assert_eq!(retry_after(&map, now), expected, "{map:?}");
        }
    }

    #[test]
    fn backoff_doubles_is_capped_and_jittered_within_bounds() {
        let limits = Limits {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
            ..Limits::default()
        };
        for (retry, full) in [
            (0, 100),
            (1, 200),
            (2, 400),
            (3, 800),
            (4, 1000),
            (40, 1000),
        ] {
            for _ in 0..50 {
                let delay = backoff(&limits, retry);
                let full = Duration::from_millis(full);
                assert!(
                    delay >= full / 2 && delay <= full,
                    "retry {retry}: {delay:?}"
                );
            }
        }
    }

    #[tokio::test]
    async fn retrying_tries_until_success_or_a_failure_for_good() {
        let limits = Limits {
            max_retries: 5,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(1),
            ..Limits::default()
        };
        let mut tries = 0;
        let answer: Result<u32, ProviderError> = retrying!(&limits, {
            tries += 1;
            if tries < 3 {
                Err(Failure::retryable(ProviderErrorKind::Connect, "refused"))
            } else {
                Ok(tries)
            }
        });
        assert_eq!(answer.unwrap(), 3);
        let mut tries = 0;
        let answer: Result<(), ProviderError> = retrying!(&limits, {
            tries += 1;
            Err(Failure::fatal(ProviderErrorKind::Status(401), "no"))
        });
        assert_eq!(answer.unwrap_err().message, "no");
        assert_eq!(tries, 1, "a failure for good is not tried again");
    }

    fn two_quick_retries() -> Limits {
        Limits {
            max_retries: 2,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(1),
            ..Limits::default()
        }
    }

    #[tokio::test]
    async fn gives_up_after_max_retries_and_says_how_often_it_tried() {
        let limits = two_quick_retries();
        let mut retries = Retries::new(&limits);
        let failure = || Failure::retryable(ProviderErrorKind::Connect, "refused");
        assert!(retries.wait_or_give_up(failure()).await.is_ok());
        assert!(retries.wait_or_give_up(failure()).await.is_ok());
        let error = retries.wait_or_give_up(failure()).await.unwrap_err();
        assert_eq!(error.message, "refused (tried 3 times)");
        let mut retries = Retries::new(&limits);
        let error = retries
            .wait_or_give_up(Failure::fatal(ProviderErrorKind::Status(401), "no"))
            .await
            .unwrap_err();
        assert_eq!(error.message, "no");
    }

    #[tokio::test]
    async fn each_retry_is_told_before_its_wait_and_giving_up_is_not() {
        let limits = two_quick_retries();
        let mut retries = Retries::new(&limits);
        let mut told = Vec::new();
        let failure = || Failure::retryable(ProviderErrorKind::Status(500), "HTTP 500: boom");
        for _ in 0..3 {
            let _ = retries.wait_telling(failure(), &mut |d| told.push(d)).await;
        }
        let told: Vec<_> = told
            .into_iter()
            .map(|d| match d {
                Delta::Retrying(r) => (r.retry, r.max_retries, r.status, r.error),
                other => panic!("{other:?}"),
            })
            .collect();
        let boom = || "HTTP 500: boom".to_string();
        assert_eq!(told, [(1, 2, Some(500), boom()), (2, 2, Some(500), boom())]);
    }
}
