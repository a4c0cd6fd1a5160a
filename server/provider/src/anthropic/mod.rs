//! Anthropic Messages: the request body, the streamed answer, and a whole answer.

mod request;
mod stream;
mod whole;

pub use request::{API_VERSION, MAX_TOKENS, request_body};
pub use stream::AnthropicStream;
pub use whole::parse_message;

/// The headers of every request: the key as `x-api-key`, and the API version.
pub(crate) fn headers(
    key: Option<&str>,
) -> Result<reqwest::header::HeaderMap, crate::ProviderError> {
    use reqwest::header::{HeaderName, HeaderValue};
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(key) = key.filter(|k| !k.is_empty()) {
        headers.insert(
            HeaderName::from_static("x-api-key"),
            crate::transport::secret_header(key.to_owned())?,
        );
    }
    headers.insert(
        HeaderName::from_static("anthropic-version"),
        HeaderValue::from_static(API_VERSION),
    );
    Ok(headers)
}

/// Where a message is asked for, under the base URL.
pub(crate) const PATH: &str = "messages";
