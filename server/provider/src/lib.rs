//! The model's edge: streaming chat completions over HTTP.
//!
//! Knows the wire formats (OpenAI Chat Completions, Anthropic Messages), SSE, retries and
//! timeouts. Knows nothing of tools' behaviour, sessions or editors.
//!
//! - [`HttpModelClient`] is the [`ModelClient`] to use; [`probe`] finds a local server.
//! - One HTTP transport (`transport`: TLS, redirects, stall timeouts, retries, a status in the
//!   provider's words) carries every backend: [`openai`] (OpenAI-compatible servers, LM Studio
//!   and vLLM among them), [`anthropic`], [`ollama`]'s native API, llama.cpp's extras
//!   (`llamacpp`: window, slots, tokenizer, chat template) and LM Studio's (`lmstudio`: what it
//!   has loaded), each with its request, its stream and its errors. [`sse`] decodes event streams; [`stream::StreamAccumulator`] reassembles answers.
//! - Around a backend, as layers: text tool calls ([`textcalls`]), the window and its probing
//!   ([`window`]), finding a local server (`discovery`). An overflow is recognised once
//!   (`overflow`), as [`ProviderErrorKind::ContextOverflow`].
//! - A stream that ends with neither an end marker (`[DONE]`, `message_stop`) nor a finish
//!   reason was cut short: [`ProviderErrorKind::Interrupted`]. A request is retried (429, 5xx,
//!   connection failures, a stream broken before anything was relayed) only while nothing of
//!   the answer has reached the user.

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use tandem_model::{Completion, Delta, Message, ToolDefinition};

// The transport, beneath everything that talks to a server.
mod transport;
// The backends: each its request, its stream and its errors, over the transport.
pub mod anthropic;
mod llamacpp;
mod lmstudio;
pub mod ollama;
pub mod openai;
// What the backends share: event streams, answers, error bodies and refusals, images.
mod error_body;
pub mod images;
mod models;
mod overflow;
mod refusal;
pub mod sse;
pub mod stream;
pub mod tokens;
// The layers around a backend: text tool calls, windows, finding a server; the client that
// puts them together.
mod client;
mod discovery;
mod memory;
pub mod textcalls;
pub mod window;

pub use client::HttpModelClient;
pub use discovery::{LOCAL_SERVERS, LazyClient, ProviderOptions, no_server_message};
pub use memory::ToolModeMemory;
pub use transport::probe;
pub use window::{ServerKind, Window};

/// What a request beside the conversation (a summary, a title) does to the conversation's place
/// in the server's prompt cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsideCache {
    /// The server does not say (hosted APIs, Ollama, LM Studio).
    Unknown,
    /// It goes to a slot of its own: llama.cpp with several slots, no eviction seen.
    OwnSlot,
    /// It would evict the conversation: llama.cpp with one slot, or slots seen sharing one cache.
    Evicts,
}

/// How tools reach the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolMode {
    /// The API's own tool calling (`tools` in the request).
    Native,
    /// Tools described in the system prompt, calls written as `<tool_call>` text.
    Text,
    /// Native, switching to text for the session when the server refuses tools, the model
    /// lacks them (Ollama capabilities), or the server dropped them.
    #[default]
    Auto,
}

/// What a local model needs beyond the endpoint: the user's window, the tool mode, and whether
/// to find out what kind of server answers (its window, its tokenizer, Ollama's native API).
#[derive(Clone, Debug, Default)]
pub struct LocalOptions {
    /// The user's context window, which wins over anything the server says.
    pub context_window: Option<u64>,
    pub tool_mode: ToolMode,
    /// Ask the server what it is (a few GETs on first use). Off for a bare [`HttpModelClient`],
    /// and for a hosted API (anything but the user's own machine or network), which is never
    /// probed.
    pub detect: bool,
    /// The most tokens one answer may take (`max_tokens`); `None`: a share of the window
    /// ([`tokens::answer_limit`]), sent to local servers only; `Some(0)`: none sent.
    pub max_output_tokens: Option<u64>,
    /// Where a switch to text tools is remembered for the next sessions.
    pub memory: Option<ToolModeMemory>,
}

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
    pub purpose: Purpose,
}

impl<'a> CompletionRequest<'a> {
    /// A step of the conversation keyed `key` (a session).
    pub fn conversation(messages: &'a [Message], tools: &'a [ToolDefinition], key: u64) -> Self {
        Self {
            messages,
            tools,
            purpose: Purpose::Conversation(key),
        }
    }
}

/// Whom a request serves, so a server's prompt cache keeps the conversation: a llama.cpp server
/// with several slots gets each conversation pinned to one of them and the requests beside it
/// sent to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A step of the conversation with this key (a session): its prompt grows by appending, so
    /// the server's cache of it is worth keeping.
    Conversation(u64),
    /// A request beside a conversation (a summary of it), with a prompt of its own.
    Aside,
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
    /// No model server is configured and none answered on this machine: nothing was sent.
    NoServer,
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
    /// A 200 event stream with no byte in its body: llama-cpp-python's way to refuse a prompt
    /// longer than its window (the reason goes to its log only), or a crash.
    EmptyStream,
    /// The request does not fit the model's context window; never retried as it is. The
    /// numbers, when the server gave them.
    ContextOverflow {
        window: Option<u64>,
        requested: Option<u64>,
    },
    /// The server or the model takes no tools (a 400 that says so).
    ToolsUnsupported,
    /// The model takes no images: the server said so before the request (Ollama
    /// `capabilities`, LM Studio's model type, llama.cpp's `modalities`) or refused them.
    ImagesUnsupported,
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

    /// A client for another model of the same endpoint (its settings and key), for a subagent
    /// whose definition names one. `None` where this client can't switch models.
    fn for_model<'a>(
        &'a self,
        _model: &'a str,
    ) -> BoxFuture<'a, Option<std::sync::Arc<dyn ModelClient>>> {
        Box::pin(async { None })
    }

    /// The context window in use: the user's setting, else what the server's overflow error
    /// said, else what the server reports. `None` when nothing says.
    fn window(&self) -> BoxFuture<'_, Option<Window>> {
        Box::pin(async { None })
    }

    /// What kind of server answers (known after the first request or [`ModelClient::window`]).
    fn server_kind(&self) -> ServerKind {
        ServerKind::Other
    }

    /// Tokens of `text` by the server's own tokenizer, where it offers one (llama.cpp
    /// `/tokenize`, llama-cpp-python `/extras/tokenize/count`).
    fn count_tokens<'a>(&'a self, _text: &'a str) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async { None })
    }

    /// Tokens of the whole request as the server will read it, its chat template included
    /// (llama.cpp: `/apply-template`, then `/tokenize`), where the server can say.
    fn count_request<'a>(&'a self, _request: CompletionRequest<'a>) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async { None })
    }

    /// What a request beside the conversation ([`Purpose::Aside`]) does to the conversation's
    /// place in the server's prompt cache, as far as the server says.
    fn aside_cache(&self) -> BoxFuture<'_, AsideCache> {
        Box::pin(async { AsideCache::Unknown })
    }

    /// Whether tools now go as text in the system prompt (text mode, or auto after a switch).
    fn text_tools(&self) -> bool {
        false
    }

    /// In auto mode, switches to text tools (the server dropped them); whether it switched.
    fn switch_to_text_tools(&self) -> bool {
        false
    }

    /// Whether the server runs on this machine (its errors then point at its log).
    fn is_local(&self) -> bool {
        false
    }

    /// The `max_tokens` the last request carried, if any: what a cut answer was cut at.
    fn output_limit(&self) -> Option<u64> {
        None
    }

    /// What the client decided on its own since last asked and the user should hear once (a
    /// switch to text tools, a setting the server contradicts), oldest first.
    fn take_notices(&self) -> Vec<String> {
        Vec::new()
    }
}
