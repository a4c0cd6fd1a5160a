//! The model's edge: streaming chat completions over HTTP.
//!
//! Knows the wire formats (OpenAI Chat Completions, Anthropic Messages), SSE, retries and
//! timeouts. Knows nothing of tools' behaviour, sessions or editors.
//!
//! - [`HttpModelClient`] is the [`ModelClient`] to use; [`probe`] finds a local server.
//! - [`sse`] decodes event streams; [`openai`] and [`anthropic`] build request bodies and
//!   reassemble answers (streamed, through a [`stream::StreamAccumulator`], or whole).
//! - A stream that ends with neither an end marker (`[DONE]`, `message_stop`) nor a finish
//!   reason was cut short: [`ProviderErrorKind::Interrupted`]. A request is retried (429, 5xx,
//!   connection failures, a stream broken before anything was relayed) only while nothing of
//!   the answer has reached the user.

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use tandem_model::{Completion, Delta, Message, ToolDefinition};

pub mod anthropic;
mod discovery;
mod error_body;
mod http;
mod models;
pub mod openai;
pub mod sse;
pub mod stream;

pub use discovery::{LOCAL_SERVERS, LazyClient, ProviderOptions, no_server_message};
pub use http::{HttpModelClient, probe};

/// Which wire format the endpoint speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Api {
    /// OpenAI Chat Completions (`POST {baseUrl}/chat/completions`): OpenAI, OpenRouter, LM Studio,
    /// Ollama's `/v1`, llama.cpp's server, vLLM, and most gateways.
    #[default]
    OpenAi,
    /// Anthropic Messages (`POST {baseUrl}/messages`).
    Anthropic,
}

/// An API key. Its `Debug` and `Display` never show the secret.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }
    /// The secret itself: only for the request header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Where and how to reach the model.
#[derive(Clone, Debug)]
pub struct ProviderConfig {
    /// E.g. `https://api.openai.com/v1` or `http://127.0.0.1:1234/v1` (no trailing slash needed).
    pub base_url: String,
    pub model: String,
    pub api_key: Option<ApiKey>,
    pub api: Api,
    /// Per-request limits and retry policy.
    pub limits: Limits,
}

/// Timeouts and the retry policy.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Connecting to the endpoint.
    pub connect_timeout: Duration,
    /// The longest silence allowed between two bytes of a streaming answer (and before the
    /// response headers arrive).
    pub stall_timeout: Duration,
    /// Retries after 429, 5xx or a connection failure, before any byte of the answer was used.
    pub max_retries: u32,
    /// First backoff; doubles each retry, with jitter, capped at `max_backoff`.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// The largest single SSE event (one line or the `data:` lines of one event) accepted.
    pub max_event_bytes: usize,
    /// The largest answer (text, reasoning and tool calls together) accepted.
    pub max_answer_bytes: usize,
    /// The longest time a streaming answer may go without the model saying anything new (text,
    /// reasoning or tool-call bytes): bytes that carry nothing, such as empty deltas or
    /// keep-alive comments, don't count.
    pub progress_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            stall_timeout: Duration::from_secs(120),
            max_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            max_event_bytes: 8 * 1024 * 1024,
            max_answer_bytes: 32 * 1024 * 1024,
            progress_timeout: Duration::from_secs(300),
        }
    }
}

/// What one request asks for.
#[derive(Clone, Copy, Debug)]
pub struct CompletionRequest<'a> {
    pub messages: &'a [Message],
    pub tools: &'a [ToolDefinition],
}

/// A model the endpoint offers (`GET {baseUrl}/models`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub id: String,
    /// The context window, where the endpoint says (LM Studio, OpenRouter, llama.cpp do).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

/// Why a request failed. The message is meant for the user and never holds the API key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProviderError {
    pub kind: ProviderErrorKind,
    pub message: String,
}

impl ProviderError {
    pub fn new(kind: ProviderErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProviderErrorKind {
    /// Could not connect (after retries).
    Connect,
    /// A non-2xx status (after retries where retryable); the message carries the provider's own.
    Status(u16),
    /// The provider sent an error inside a 200 stream.
    Stream,
    /// The body was not an SSE stream (nor a whole JSON completion).
    BadResponse,
    /// No byte arrived within the stall timeout.
    Timeout,
    /// The connection broke mid-answer.
    Interrupted,
}

/// Streams completions from one configured endpoint.
pub trait ModelClient: Send + Sync {
    /// Sends the conversation and the tools, relays text and reasoning to `on_delta` as they
    /// arrive, and returns the whole answer. Dropping the future aborts the HTTP request.
    fn complete<'a>(
        &'a self,
        request: CompletionRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta) + Send),
    ) -> BoxFuture<'a, Result<Completion, ProviderError>>;

    /// The models the endpoint offers.
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>>;

    /// The model requests go to.
    fn model(&self) -> String;
}
