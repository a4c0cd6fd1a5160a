//! The one HTTP transport every backend talks through: the client (TLS, same-origin redirects, no
//! proxy for this machine), a request sent within the stall timeout, a non-2xx answer turned
//! into the provider's own words ([`failure`]), an answer read within the limits ([`answer`]),
//! the retry policy ([`retry`]), and the small probes that ask a server what it is. It knows no
//! wire format and no backend: those are the backends' (`openai`, `anthropic`, `ollama`,
//! `llamacpp`, `lmstudio`) and the client's (`client`), which sit above it.

pub(crate) mod answer;
pub(crate) mod failure;
pub(crate) mod host;
pub(crate) mod retry;

use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{RequestBuilder, Response};
use serde_json::Value;

use self::failure::{root_cause, seconds};
use self::retry::Failure;
use crate::{Limits, ProviderError, ProviderErrorKind};

/// How long each question about the server may take.
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The most of a probe's answer read: what a server says of itself is small, and a server
/// that answers with an endless body must not take the memory with it.
const PROBE_BODY_LIMIT: usize = 1024 * 1024;

/// One endpoint over HTTP: where it is, the headers each request carries (the backend's
/// authentication), and the limits.
pub(crate) struct Transport {
    base_url: String,
    limits: Limits,
    /// The backend's headers, or why they cannot be sent (a key that is no header value).
    headers: Result<HeaderMap, ProviderError>,
    /// Built on first use: building it loads the TLS roots, which `tandem lsp` start-up must not
    /// pay for.
    client: OnceLock<reqwest::Client>,
}

impl Transport {
    pub fn new(base_url: &str, limits: Limits, headers: Result<HeaderMap, ProviderError>) -> Self {
        Self {
            base_url: base_url.to_string(),
            limits,
            headers,
            client: OnceLock::new(),
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn headers(&self) -> Result<HeaderMap, ProviderError> {
        self.headers.clone()
    }

    /// `{base_url}/{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url.trim_end_matches('/'))
    }

    /// The server's address without the API path (`http://host:port`), where llama.cpp's
    /// `/props`, Ollama's `/api/*` and LM Studio's `/api/v0/*` live.
    pub fn root(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        base.strip_suffix("/v1").unwrap_or(base).to_string()
    }

    /// The base URL as messages show it: without any user name or password in it.
    pub fn shown_url(&self) -> String {
        match reqwest::Url::parse(&self.base_url) {
            Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
                let _ = url.set_username("");
                let _ = url.set_password(None);
                url.to_string()
            }
            _ => self.base_url.clone(),
        }
    }

    /// Whether the server runs on this machine.
    pub fn is_loopback(&self) -> bool {
        host::is_loopback(&self.base_url)
    }

    pub fn client(&self) -> Result<&reqwest::Client, ProviderError> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let client =
            build_client(&self.base_url, self.limits.connect_timeout).map_err(|error| {
                ProviderError::new(
                    ProviderErrorKind::Connect,
                    format!("could not set up the HTTP client: {}", root_cause(&error)),
                )
            })?;
        Ok(self.client.get_or_init(|| client))
    }

    /// A client that keeps no connection: each request opens its own. Otherwise the same as the
    /// transport's own (same-origin redirects only, TLS, proxy rules).
    pub fn fresh_client(&self) -> Result<reqwest::Client, ProviderError> {
        client_for(&self.base_url, self.limits.connect_timeout)
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| ProviderError::new(ProviderErrorKind::Connect, e.to_string()))
    }

    /// A JSON `POST` to `url` with the backend's headers, its body sent as the bytes given.
    pub fn post(&self, url: &str, body: bytes::Bytes) -> Result<RequestBuilder, ProviderError> {
        Ok(self
            .client()?
            .post(url)
            .headers(self.headers()?)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body))
    }

    /// Sends a request and waits for its response headers, within the stall timeout.
    pub async fn send(&self, request: RequestBuilder) -> Result<Response, Failure> {
        let stall = self.limits.stall_timeout;
        let response = match tokio::time::timeout(stall, request.send()).await {
            Err(_) => {
                return Err(Failure::fatal(
                    ProviderErrorKind::Timeout,
                    format!(
                        "the model server did not answer within {} (the stall timeout)",
                        seconds(stall)
                    ),
                ));
            }
            Ok(Err(error)) => return Err(failure::send_error(&error, &self.shown_url())),
            Ok(Ok(response)) => response,
        };
        if response.status().is_success() {
            Ok(response)
        } else {
            Err(failure::status_error(response, stall).await)
        }
    }

    /// `GET url`'s JSON answer, as a probe: see [`Transport::probe`].
    pub async fn get_json(&self, url: &str) -> Option<Value> {
        let client = self.client().ok()?;
        self.probe(client.get(url)).await
    }

    /// `POST url` with a JSON body, as a probe: see [`Transport::probe`].
    pub async fn post_json(&self, url: &str, body: &Value) -> Option<Value> {
        let client = self.client().ok()?;
        self.probe(client.post(url).json(body)).await
    }

    /// A probe's JSON answer: `None` for anything but a success within the probe's time and size.
    /// A request that fails to go out is sent once more on a fresh connection: llama-server
    /// closes idle connections after 5 s, so the pooled one a count takes after a long answer
    /// may be closing as it is used.
    async fn probe(&self, request: RequestBuilder) -> Option<Value> {
        let (client, request) = request.headers(self.headers().ok()?).build_split();
        let request = request.ok()?;
        let again = request.try_clone();
        let response = match tokio::time::timeout(PROBE_TIMEOUT, client.execute(request)).await {
            Ok(Ok(response)) => response,
            Ok(Err(_)) => {
                let fresh = self.fresh_client().ok()?;
                tokio::time::timeout(PROBE_TIMEOUT, fresh.execute(again?))
                    .await
                    .ok()?
                    .ok()?
            }
            Err(_) => return None,
        };
        if !response.status().is_success() {
            return None;
        }
        let bytes = tokio::time::timeout(PROBE_TIMEOUT, small_body(response))
            .await
            .ok()??;
        serde_json::from_slice(&bytes).ok()
    }
}

/// A header value that holds a secret: marked sensitive, so HTTP/2 never indexes it and it never
/// shows in a header's `Debug`.
pub(crate) fn secret_header(text: String) -> Result<HeaderValue, ProviderError> {
    let mut value = HeaderValue::from_str(&text).map_err(|_| {
        ProviderError::new(
            ProviderErrorKind::Connect,
            "the API key holds characters that cannot be sent in an HTTP header",
        )
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// A probe's body, or `None` past [`PROBE_BODY_LIMIT`] or on a read error.
pub(crate) async fn small_body(response: Response) -> Option<Vec<u8>> {
    use futures_util::StreamExt;
    let mut body = response.bytes_stream();
    let mut whole = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.ok()?;
        if whole.len() + chunk.len() > PROBE_BODY_LIMIT {
            return None;
        }
        whole.extend_from_slice(&chunk);
    }
    Some(whole)
}

/// Whether `GET {base_url}/models` answers 2xx within `timeout`: how a local LM Studio, Ollama
/// or llama.cpp server is found when nothing is configured.
pub async fn probe(base_url: &str, timeout: Duration) -> bool {
    let Ok(client) = build_client(base_url, timeout) else {
        return false;
    };
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    matches!(
        tokio::time::timeout(timeout, client.get(url).send()).await,
        Ok(Ok(response)) if response.status().is_success()
    )
}

/// The JSON a local server answers to `GET url` within `timeout`, if any: how discovery tells
/// which kind of server is on a port.
pub(crate) async fn probe_json(url: &str, timeout: Duration) -> Option<Value> {
    let client = build_client(url, timeout).ok()?;
    let response = tokio::time::timeout(timeout, client.get(url).send())
        .await
        .ok()?
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    let body = tokio::time::timeout(timeout, small_body(response))
        .await
        .ok()??;
    serde_json::from_slice(&body).ok()
}

/// No overall timeout (answers stream for minutes; the stall timeout guards them instead). A
/// model server on this machine is never reached through a proxy.
fn build_client(base_url: &str, connect_timeout: Duration) -> reqwest::Result<reqwest::Client> {
    client_for(base_url, connect_timeout).build()
}

/// The settings every client of a model server has (TLS, redirects, proxy, user agent), for a
/// caller to add to before building.
///
/// TLS takes the process's rustls crypto provider, which the binary installs once at start-up
/// (`tandem`'s `main`); a library never chooses it. No compressed answers (the workspace's
/// reqwest decodes them, for fetch_url): a streamed answer arrives as the server sends it, never
/// held in a decoder's buffer.
fn client_for(base_url: &str, connect_timeout: Duration) -> reqwest::ClientBuilder {
    let mut builder = reqwest::Client::builder()
        .no_gzip()
        .no_deflate()
        .connect_timeout(connect_timeout)
        .tcp_nodelay(true)
        .redirect(same_origin_redirects())
        .user_agent(concat!("tandem/", env!("CARGO_PKG_VERSION")));
    if host::is_loopback(base_url) {
        builder = builder.no_proxy();
    }
    builder
}

/// Redirects are followed only within one origin (scheme, host and port): a redirect elsewhere
/// would carry the conversation, and with it the workspace's files, to a server nobody named. It
/// comes back as the 3xx it is, and the error names where it pointed.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first();
        let same = first.is_some_and(|from| {
            let to = attempt.url();
            from.scheme() == to.scheme()
                && from.host_str() == to.host_str()
                && from.port_or_known_default() == to.port_or_known_default()
        });
        if !same {
            attempt.stop()
        } else if attempt.previous().len() > 5 {
            attempt.error("more than 5 redirects")
        } else {
            attempt.follow()
        }
    })
}
