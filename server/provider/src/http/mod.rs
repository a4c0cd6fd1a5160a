//! [`HttpModelClient`]: the [`ModelClient`] that talks to a configured endpoint over HTTP, with
//! retries, stall timeouts and errors in the provider's own words (never with the API key).

mod answer;
mod failure;
mod host;
pub(crate) mod local;
mod retry;

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{RequestBuilder, Response};

use self::answer::ParseWhole;
use self::failure::{redact, root_cause, seconds};
use self::host::is_loopback;
use self::retry::{Failure, Retry, retrying};
use super::anthropic::{self, AnthropicStream};
use super::error_body::unexpected_body;
use super::models::parse_model_list;
use super::openai::{self, OpenAiStream};
use super::stream::StreamAccumulator;
use super::{
    Api, AsideCache, CompletionRequest, LocalOptions, ModelClient, ModelInfo, ProviderConfig,
    ProviderError, ProviderErrorKind, ServerKind, Window,
};
use tandem_model::{Completion, Delta};

/// Streams completions from one endpoint ([`ProviderConfig`]).
pub struct HttpModelClient {
    config: ProviderConfig,
    /// Built on first use: building it loads the TLS roots, which `tandem lsp` start-up must not
    /// pay for.
    client: OnceLock<reqwest::Client>,
    /// What local models need: the server's kind and window, the tool mode (`local.rs`).
    local: local::LocalState,
}

impl HttpModelClient {
    pub fn new(config: ProviderConfig) -> Self {
        Self::with_local(config, LocalOptions::default())
    }

    /// A client that also knows the user's window and tool mode, and (with `detect`, for a
    /// server on the user's own machine or network) finds out what kind of server answers.
    pub fn with_local(config: ProviderConfig, mut options: LocalOptions) -> Self {
        // Only a server on the user's own machine or network is asked what it is (its props,
        // model info, tokenizer): a hosted API gets its own API's requests and nothing else.
        options.detect &= host::is_own_network(&config.base_url);
        Self {
            local: local::LocalState::new(options, &config.base_url, &config.model),
            config,
            client: OnceLock::new(),
        }
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// One request in the endpoint's own format, with retries.
    async fn complete_wire(
        &self,
        request: CompletionRequest<'_>,
        extras: openai::Extras,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, ProviderError> {
        let client = self.client()?;
        let headers = self.headers()?;
        let model = &self.config.model;
        let (path, body) = match self.config.api {
            Api::OpenAi => (
                "chat/completions",
                openai::request_body_with(model, request, &extras),
            ),
            Api::Anthropic => ("messages", anthropic::request_body(model, request)),
        };
        let url = self.url(path);
        // Serialized once; each attempt sends the same shared bytes.
        let body = Bytes::from(body);
        let answer = retrying!(
            &self.config.limits,
            {
                let post = client
                    .post(&url)
                    .headers(headers.clone())
                    .header(CONTENT_TYPE, "application/json")
                    .body(body.clone());
                let attempt = match self.config.api {
                    Api::OpenAi => {
                        self.attempt::<OpenAiStream>(post, openai::parse_completion, on_delta)
                            .await
                    }
                    Api::Anthropic => {
                        self.attempt::<AnthropicStream>(post, anthropic::parse_message, on_delta)
                            .await
                    }
                };
                attempt.map_err(|mut failure| {
                    // A local server's empty stream is not tried again as it was: it is asked once
                    // more without streaming, below.
                    if failure.error.kind == ProviderErrorKind::EmptyStream && self.is_local() {
                        failure.retry = Retry::No;
                    }
                    failure
                })
            },
            on_delta
        );
        match answer {
            Ok(completion) => Ok(completion),
            Err(error) if error.kind == ProviderErrorKind::EmptyStream && self.is_local() => {
                self.unstreamed(request, &url, &headers, &body, on_delta)
                    .await
            }
            Err(error) => Err(self.explain(error, &url)),
        }
    }

    async fn attempt<A: StreamAccumulator>(
        &self,
        request: RequestBuilder,
        parse_whole: ParseWhole,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, Failure> {
        let response = self.send(request).await?;
        answer::read::<A>(response, &self.config.limits, parse_whole, on_delta).await
    }

    async fn list_models_inner(&self) -> Result<Vec<ModelInfo>, ProviderError> {
        let client = self.client()?;
        let headers = self.headers()?;
        let url = self.url("models");
        retrying!(
            &self.config.limits,
            self.fetch_models(client.get(&url).headers(headers.clone()))
                .await
        )
    }

    async fn fetch_models(&self, request: RequestBuilder) -> Result<Vec<ModelInfo>, Failure> {
        let stall = self.config.limits.stall_timeout;
        let mut body = self.send(request).await?.bytes_stream();
        let whole = answer::read_to_end(&mut body, None, stall).await?;
        serde_json::from_slice(&whole)
            .ok()
            .and_then(|value| parse_model_list(&value))
            .ok_or_else(|| {
                Failure::from(unexpected_body(
                    "the model server's model list is not the expected {\"data\": [...]} JSON",
                    &whole,
                ))
            })
    }

    /// Sends a request and waits for its response headers, within the stall timeout.
    pub(super) async fn send(&self, request: RequestBuilder) -> Result<Response, Failure> {
        let stall = self.config.limits.stall_timeout;
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

    pub(super) fn client(&self) -> Result<&reqwest::Client, ProviderError> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let client = build_client(&self.config.base_url, self.config.limits.connect_timeout)
            .map_err(|error| {
                ProviderError::new(
                    ProviderErrorKind::Connect,
                    format!("could not set up the HTTP client: {}", root_cause(&error)),
                )
            })?;
        Ok(self.client.get_or_init(|| client))
    }

    /// The authentication and version headers each API wants. The key is marked sensitive, so
    /// HTTP/2 never indexes it and it never shows in a header's `Debug`.
    pub(super) fn headers(&self) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        let key = self.config.api_key.as_ref().map(|k| k.expose());
        let secret = |text: String| {
            let mut value = HeaderValue::from_str(&text).map_err(|_| {
                ProviderError::new(
                    ProviderErrorKind::Connect,
                    "the API key holds characters that cannot be sent in an HTTP header",
                )
            })?;
            value.set_sensitive(true);
            Ok::<_, ProviderError>(value)
        };
        match self.config.api {
            Api::OpenAi => {
                if let Some(key) = key.filter(|k| !k.is_empty()) {
                    headers.insert(AUTHORIZATION, secret(format!("Bearer {key}"))?);
                }
            }
            Api::Anthropic => {
                if let Some(key) = key.filter(|k| !k.is_empty()) {
                    headers.insert(
                        HeaderName::from_static("x-api-key"),
                        secret(key.to_owned())?,
                    );
                }
                headers.insert(
                    HeaderName::from_static("anthropic-version"),
                    HeaderValue::from_static(anthropic::API_VERSION),
                );
            }
        }
        Ok(headers)
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.config.base_url.trim_end_matches('/'))
    }

    /// The base URL as messages show it: without any user name or password in it.
    pub(super) fn shown_url(&self) -> String {
        match reqwest::Url::parse(&self.config.base_url) {
            Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
                let _ = url.set_username("");
                let _ = url.set_password(None);
                url.to_string()
            }
            _ => self.config.base_url.clone(),
        }
    }
}

/// Shows the configuration only: the key is masked, even where the base URL holds it.
impl fmt::Debug for HttpModelClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = format!("{:?}", self.config);
        let config = match self.config.api_key.as_ref().map(|k| k.expose()) {
            Some(key) if !key.is_empty() => config.replace(key, "***"),
            _ => config,
        };
        f.debug_struct("HttpModelClient")
            .field("config", &format_args!("{config}"))
            .finish_non_exhaustive()
    }
}

impl ModelClient for HttpModelClient {
    fn complete<'a>(
        &'a self,
        request: CompletionRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta) + Send),
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        async move {
            self.complete_local(request, on_delta)
                .await
                .map_err(|error| redact(error, self.config.api_key.as_ref()))
        }
        .boxed()
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        async move {
            self.list_models_inner()
                .await
                .map_err(|error| redact(error, self.config.api_key.as_ref()))
        }
        .boxed()
    }

    fn model(&self) -> String {
        self.config.model.clone()
    }

    fn window(&self) -> BoxFuture<'_, Option<Window>> {
        self.local_window().boxed()
    }

    fn server_kind(&self) -> ServerKind {
        self.local.kind()
    }

    fn count_tokens<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Option<u64>> {
        self.local_count_tokens(text).boxed()
    }

    fn count_request<'a>(&'a self, request: CompletionRequest<'a>) -> BoxFuture<'a, Option<u64>> {
        self.local_count_request(request).boxed()
    }

    fn aside_cache(&self) -> BoxFuture<'_, AsideCache> {
        self.local_aside_cache().boxed()
    }

    fn text_tools(&self) -> bool {
        self.local.text_tools()
    }

    fn switch_to_text_tools(&self) -> bool {
        self.local.switch_to_text_tools(
            "the server read fewer prompt tokens than the tool definitions take",
        )
    }

    fn is_local(&self) -> bool {
        is_loopback(&self.config.base_url)
    }

    fn output_limit(&self) -> Option<u64> {
        self.local.output_limit()
    }

    fn take_notices(&self) -> Vec<String> {
        self.local.take_notices()
    }
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
pub(crate) async fn probe_json(url: &str, timeout: Duration) -> Option<serde_json::Value> {
    let client = build_client(url, timeout).ok()?;
    let response = tokio::time::timeout(timeout, client.get(url).send())
        .await
        .ok()?
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    let body = tokio::time::timeout(timeout, local::small_body(response))
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
pub(super) fn client_for(base_url: &str, connect_timeout: Duration) -> reqwest::ClientBuilder {
    let mut builder = client_builder()
        .connect_timeout(connect_timeout)
        .tcp_nodelay(true)
        .redirect(same_origin_redirects())
        .user_agent(concat!("tandem/", env!("CARGO_PKG_VERSION")));
    if is_loopback(base_url) {
        builder = builder.no_proxy();
    }
    builder
}

/// A client builder whose TLS works: reqwest's rustls takes the process's crypto provider, and
/// ring's is installed unless another was first. No compressed answers (the workspace's reqwest
/// decodes them, for fetch_url): a streamed answer arrives as the server sends it, never held
/// in a decoder's buffer.
pub(super) fn client_builder() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_gzip().no_deflate()
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
