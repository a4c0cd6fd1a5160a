//! Turning what went wrong on the wire into messages a user can act on.

use std::error::Error as _;
use std::time::{Duration, SystemTime};

use futures_util::StreamExt;
use reqwest::{Response, StatusCode};

use super::retry::{Failure, RETRY_AFTER_LIMIT, Retry, retry_after};
use crate::error_body;
use crate::{ApiKey, ProviderError, ProviderErrorKind};

/// The most of an error body read: enough for any message, bounded against a runaway body.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// A request that got no response. Connection failures are worth retrying; a malformed URL is not.
pub(crate) fn send_error(error: &reqwest::Error, base_url: &str) -> Failure {
    let cause = root_cause(error);
    if error.is_builder() {
        return Failure::fatal(
            ProviderErrorKind::Connect,
            format!("the model server URL {base_url} cannot be used: {cause}"),
        );
    }
    let what = if error.is_connect() {
        "could not connect to the model server at"
    } else {
        "the request to the model server failed at"
    };
    Failure::retryable(
        ProviderErrorKind::Connect,
        format!("{what} {base_url}: {cause}"),
    )
}

/// A non-2xx answer, with the provider's own message. 429 and 5xx are retried, after the
/// server's `Retry-After` when it gives one.
pub(crate) async fn status_error(response: Response, stall: Duration) -> Failure {
    let status = response.status();
    if status.is_redirection() {
        let to = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("?")
            .to_string();
        return Failure::fatal(
            ProviderErrorKind::Status(status.as_u16()),
            format!(
                "model server returned {} to {to}, another server: not followed, so the \
                 conversation and the key stay with the server you named. If that is where the \
                 model is, set the base URL to it",
                status_text(status)
            ),
        );
    }
    let wait = retry_after(response.headers(), SystemTime::now());
    let body = read_error_body(response, stall).await;
    let mut message = format!("model server returned {}", status_text(status));
    if let Some(said) = error_body::message_from_body(&body) {
        message = format!("{message}: {said}");
    }
    if let Some(known) = crate::refusal::classify_status(status.as_u16(), &body, &message) {
        if known == ProviderErrorKind::ImagesUnsupported {
            message = crate::images::refused(&message);
        }
        return Failure::fatal(known, message);
    }
    let kind = ProviderErrorKind::Status(status.as_u16());
    if !matches!(status.as_u16(), 429 | 500 | 502 | 503 | 504 | 529) {
        return Failure::fatal(kind, message);
    }
    match wait {
        Some(wait) if wait > RETRY_AFTER_LIMIT => Failure::fatal(
            kind,
            format!(
                "{message} (the server asks to wait {} before retrying; not waiting that long)",
                seconds(wait)
            ),
        ),
        Some(wait) => Failure {
            error: ProviderError::new(kind, message),
            retry: Retry::After(wait),
        },
        None => Failure::retryable(kind, message),
    }
}

/// Reads what an error body there is; a body that stalls or breaks yields what arrived.
async fn read_error_body(response: Response, stall: Duration) -> Vec<u8> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while body.len() < ERROR_BODY_LIMIT {
        match tokio::time::timeout(stall, stream.next()).await {
            Ok(Some(Ok(bytes))) => body.extend_from_slice(&bytes),
            _ => break,
        }
    }
    body.truncate(ERROR_BODY_LIMIT);
    body
}

/// `401 Unauthorized`; Anthropic's non-standard 529 gets its name too.
fn status_text(status: StatusCode) -> String {
    let reason = status
        .canonical_reason()
        .or((status.as_u16() == 529).then_some("Overloaded"));
    match reason {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// The innermost cause ("Connection refused (os error 111)"): reqwest's own top-level text is a
/// vague "error sending request" with the URL.
pub(crate) fn root_cause(error: &reqwest::Error) -> String {
    let Some(mut cause) = error.source() else {
        let text = error.to_string();
        return match error.url() {
            Some(url) => text.replace(url.as_str(), "the model server"),
            None => text,
        };
    };
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// `120 s`, or `0.3 s` for the short timeouts of tests.
pub(crate) fn seconds(duration: Duration) -> String {
    if duration.subsec_nanos() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

/// Masks the key wherever a message might quote it (a server echoing it, a URL holding it).
pub(crate) fn redact(mut error: ProviderError, key: Option<&ApiKey>) -> ProviderError {
    if let Some(key) = key.map(ApiKey::expose).filter(|k| !k.is_empty())
        && error.message.contains(key)
    {
        error.message = error.message.replace(key, "***");
    }
    error
}
