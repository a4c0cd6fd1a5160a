//! OpenAI Chat Completions: the request body, the streamed answer, and a whole answer.

mod request;
mod stream;
mod whole;
mod wire;

pub use request::{Extras, request_body, request_body_limited, request_body_with};
pub use stream::OpenAiStream;
pub use whole::parse_completion;

/// The headers of every request: the key as a bearer token, where there is one.
pub(crate) fn headers(
    key: Option<&str>,
) -> Result<reqwest::header::HeaderMap, crate::ProviderError> {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(key) = key.filter(|k| !k.is_empty()) {
        headers.insert(
            reqwest::header::AUTHORIZATION,
            crate::transport::secret_header(format!("Bearer {key}"))?,
        );
    }
    Ok(headers)
}

/// Where a completion is asked for, under the base URL.
pub(crate) const PATH: &str = "chat/completions";
