//! [`HttpModelClient`]: the [`ModelClient`] that talks to a configured endpoint through the one
//! HTTP transport ([`crate::transport`]), with the backend its API names (`wire`: OpenAI-compatible
//! or Anthropic; Ollama's native API where discovery finds Ollama) and the layers local models
//! need around it: discovery (`detect`), window probing and counting (`sizing`), the prompt cache
//! (`cache`), text tool calls (`textmode`), put together per request in `complete`. Errors come
//! in the provider's own words, never with the API key; each request is a tracing span.

mod cache;
mod complete;
mod detect;
mod sizing;
mod state;
mod textmode;
mod wire;

use std::fmt;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tandem_model::{Completion, Delta};
use tracing::Instrument;

use crate::transport::Transport;
use crate::transport::failure::redact;
use crate::transport::host;
use crate::{
    Api, AsideCache, CompletionRequest, LocalOptions, ModelClient, ModelInfo, ProviderConfig,
    ProviderError, ServerKind, Window, anthropic, openai,
};

/// Streams completions from one endpoint ([`ProviderConfig`]).
pub struct HttpModelClient {
    config: ProviderConfig,
    transport: Transport,
    /// What local models need: the server's kind and window, the tool mode (`state.rs`).
    local: state::LocalState,
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
        let key = config.api_key.as_ref().map(|k| k.expose());
        let headers = match config.api {
            Api::OpenAi => openai::headers(key),
            Api::Anthropic => anthropic::headers(key),
        };
        Self {
            local: state::LocalState::new(options, &config.base_url, &config.model),
            transport: Transport::new(&config.base_url, config.limits.clone(), headers),
            config,
        }
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// A completion in a span of its own: the server's kind, the model, and when it ends the
    /// tokens in and out, the retries and how it ended (`info`, for the user's log file).
    async fn complete_traced(
        &self,
        request: CompletionRequest<'_>,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, ProviderError> {
        let span = tracing::info_span!(
            "model_request",
            server = ?self.local.kind(),
            model = %self.config.model,
            messages = request.messages.len(),
            tools = request.tools.len(),
        );
        let key = self.config.api_key.as_ref();
        async move {
            let mut retries = 0u32;
            let mut counted = |delta: Delta| {
                if let Delta::Retrying(retry) = &delta {
                    retries = retry.retry;
                    tracing::info!(
                        retry = retry.retry,
                        wait_ms = retry.wait.as_millis() as u64,
                        status = ?retry.status,
                        error = %redact(ProviderError::new(crate::ProviderErrorKind::Stream, retry.error.clone()), key).message,
                        "model request retried"
                    );
                }
                on_delta(delta);
            };
            let result = self
                .complete_local(request, &mut counted)
                .await
                .map_err(|error| redact(error, key));
            match &result {
                Ok(completion) => {
                    let usage = completion.usage.as_ref();
                    tracing::info!(
                        server = ?self.local.kind(),
                        tokens_in = usage.map(|u| u.prompt_tokens),
                        tokens_out = usage.map(|u| u.completion_tokens),
                        retries,
                        finish = ?completion.finish_reason,
                        status = "ok",
                        "model request done"
                    );
                }
                Err(error) => {
                    tracing::warn!(
                        server = ?self.local.kind(),
                        retries,
                        status = ?error.kind,
                        "model request failed: {}",
                        error.message
                    );
                }
            }
            result
        }
        .instrument(span)
        .await
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
        self.complete_traced(request, on_delta).boxed()
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
        self.transport.is_loopback()
    }

    fn output_limit(&self) -> Option<u64> {
        self.local.output_limit()
    }

    fn take_notices(&self) -> Vec<String> {
        self.local.take_notices()
    }
}
