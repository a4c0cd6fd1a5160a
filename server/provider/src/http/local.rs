//! What a local model needs from the client: the kind of server and its window, its tokenizer,
//! Ollama's native API, tool calls written as text (and the text tool mode), and errors that say
//! what to do.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderMap};
use serde_json::{Value, json};
use tandem_model::{Completion, Delta, FinishReason, Message};
use tandem_stdx::lock;
use tokio::sync::OnceCell;

use super::HttpModelClient;
use super::answer::next_chunk;
use super::retry::{Failure, Retry, retrying};
use crate::models::parse_model_list;
use crate::textcalls::{MarkupFilter, extract_meant, render_history};
use crate::window::{self, Window};
use crate::{
    Api, AsideCache, CompletionRequest, LocalOptions, ModelClient, ProviderError,
    ProviderErrorKind, Purpose, ServerKind, ToolMode, ollama, openai, tokens,
};

/// How long each question about the server may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Tokens kept free for the answer when sizing Ollama's `num_ctx`.
const OLLAMA_ANSWER_RESERVE: u64 = 2048;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Tokenizer {
    #[default]
    None,
    /// llama.cpp `POST /tokenize {"content"}`.
    LlamaCpp,
    /// llama-cpp-python `POST /extras/tokenize/count {"input"}`.
    LlamaCppPython,
}

/// What the server said about itself, asked once.
#[derive(Clone, Debug, Default)]
struct ServerInfo {
    kind: ServerKind,
    window: Option<Window>,
    tokenizer: Tokenizer,
    /// Ollama: the model's `context_length`, the bound for `num_ctx`.
    ollama_context: Option<u64>,
    /// Ollama: whether the model's capabilities include tools.
    ollama_tools: Option<bool>,
    /// llama.cpp: its slots (`/props` `total_slots`), each with a prompt cache of its own.
    slots: Option<u64>,
    /// llama.cpp: whether `/apply-template` answers, so a whole request can be counted.
    apply_template: bool,
    /// Whether the model takes images, and who said (`None`: the server does not say).
    vision: Option<(bool, &'static str)>,
}

pub(crate) struct LocalState {
    options: LocalOptions,
    server: OnceCell<ServerInfo>,
    kind: Mutex<ServerKind>,
    /// The window an overflow error named.
    learned: Mutex<Option<u64>>,
    text_tools: AtomicBool,
    /// Ollama's `num_ctx` never shrinks within a session: each change reloads the model.
    num_ctx: AtomicU64,
    /// The `max_tokens` of the last request (0: none).
    last_limit: AtomicU64,
    /// Which llama.cpp slot each conversation is pinned to.
    slots: Mutex<SlotTable>,
    /// For the user, once each: see [`crate::ModelClient::take_notices`].
    notices: Mutex<Vec<String>>,
    /// Whether the user was told their window setting is larger than the server's.
    window_told: AtomicBool,
    /// Seen: a summary request on its own slot emptied a conversation's slot (llama.cpp with a
    /// unified KV cache, the default when the slots are not set, shares one cache between them).
    asides_evicted: AtomicBool,
    /// The endpoint and model, for the memory.
    base_url: String,
    model: String,
}

impl LocalState {
    pub fn new(options: LocalOptions, base_url: &str, model: &str) -> Self {
        let mut text = options.tool_mode == ToolMode::Text;
        let mut notices = Vec::new();
        if options.tool_mode == ToolMode::Auto
            && let Some(memory) = &options.memory
            && let Some(why) = memory.text_tools(base_url, model)
        {
            text = true;
            notices.push(format!(
                "tools go to {model} as text in the prompt, as an earlier session found ({why}); \
                 to try native tool calls again, set the tool mode to native (--tool-mode native, \
                 provider.toolMode)"
            ));
        }
        Self {
            text_tools: AtomicBool::new(text),
            options,
            server: OnceCell::new(),
            kind: Mutex::new(ServerKind::Other),
            learned: Mutex::new(None),
            num_ctx: AtomicU64::new(0),
            last_limit: AtomicU64::new(0),
            slots: Mutex::new(SlotTable::default()),
            notices: Mutex::new(notices),
            window_told: AtomicBool::new(false),
            asides_evicted: AtomicBool::new(false),
            base_url: base_url.to_string(),
            model: model.to_string(),
        }
    }

    pub fn kind(&self) -> ServerKind {
        *lock(&self.kind)
    }

    pub fn text_tools(&self) -> bool {
        self.text_tools.load(Ordering::Relaxed)
    }

    /// In auto mode, tools go as text from now on, and in later sessions with this endpoint and
    /// model; whether this call switched.
    pub fn switch_to_text_tools(&self, why: &str) -> bool {
        let switched = self.options.tool_mode == ToolMode::Auto
            && !self.text_tools.swap(true, Ordering::Relaxed);
        if switched && let Some(memory) = &self.options.memory {
            memory.remember_text_tools(&self.base_url, &self.model, why);
        }
        switched
    }

    pub fn output_limit(&self) -> Option<u64> {
        Some(self.last_limit.load(Ordering::Relaxed)).filter(|&n| n > 0)
    }

    pub fn take_notices(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.notices))
    }

    fn notice(&self, message: String) {
        lock(&self.notices).push(message);
    }

    fn learn(&self, window: u64) {
        *lock(&self.learned) = Some(window);
    }
}

/// Conversations pinned to llama.cpp slots. With `n` slots the last is kept for requests beside
/// a conversation (summaries), and conversations take the others, the least recently used first
/// when there are more conversations than slots.
#[derive(Debug, Default)]
pub(crate) struct SlotTable {
    /// (conversation key, slot), most recently used last.
    pinned: Vec<(u64, u64)>,
}

impl SlotTable {
    /// The slot for a request of `purpose` on a server with `slots` slots.
    pub(crate) fn slot(&mut self, purpose: Purpose, slots: u64) -> u64 {
        let conversation_slots = if slots >= 2 { slots - 1 } else { 1 };
        let key = match purpose {
            Purpose::Aside => return slots.saturating_sub(1),
            Purpose::Conversation(key) => key,
        };
        let slot = match self.pinned.iter().position(|(k, _)| *k == key) {
            Some(i) => self.pinned.remove(i).1,
            None => {
                let free =
                    (0..conversation_slots).find(|s| self.pinned.iter().all(|(_, p)| p != s));
                match free {
                    Some(s) => s,
                    // Every slot has a conversation: the least recently used one gives way.
                    None => self.pinned.remove(0).1,
                }
            }
        };
        self.pinned.push((key, slot));
        slot
    }
}

/// What the model was given to read in `messages`, where markup it copies is an echo, not a
/// call: tool results, the user's messages (attached files, summaries), and every system
/// message after the first, which hold text from the workspace (the rules files, `AGENTS.md`
/// and the like, which the model did not write and the user may not have read). The first is
/// Tandem's own prompt: a call it shows as an example may be made as written.
fn read(messages: &[Message]) -> Vec<&str> {
    messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            Message::Tool { content, .. } | Message::User { content, .. } => Some(content.as_str()),
            Message::System { content } if i > 0 => Some(content.as_str()),
            _ => None,
        })
        .collect()
}

/// `request` as it goes out: in text mode the tools are described in the system prompt and the
/// calls and results are text, in messages `rendered` holds.
fn as_sent<'a>(
    request: CompletionRequest<'a>,
    text_mode: bool,
    rendered: &'a mut Vec<Message>,
) -> CompletionRequest<'a> {
    if !text_mode {
        return request;
    }
    *rendered = render_history(request.messages, request.tools);
    CompletionRequest {
        messages: rendered,
        tools: &[],
        ..request
    }
}

/// A failed status that is not worth retrying because of what it says: the request does not fit
/// the window, or the model takes no tools.
pub(crate) fn classify_status(
    status: u16,
    body: &[u8],
    message: &str,
) -> Option<ProviderErrorKind> {
    if matches!(status, 401 | 403 | 404 | 429) {
        return None;
    }
    let value: Option<Value> = serde_json::from_slice(body).ok();
    if let Some(overflow) = window::overflow_kind(value.as_ref(), message) {
        return Some(overflow);
    }
    // llama.cpp without a projector answers 500 "image input is not supported", and without
    // --jinja 500 "tools param requires --jinja flag": refusals, not faults worth retrying.
    if matches!(status, 400 | 422 | 500) && crate::images::says_no_images(message) {
        return Some(ProviderErrorKind::ImagesUnsupported);
    }
    (matches!(status, 400 | 422 | 500) && window::says_no_tools(message))
        .then_some(ProviderErrorKind::ToolsUnsupported)
}

/// The most of a probe's answer read: what a server says of itself is small, and a server
/// that answers with an endless body must not take the memory with it.
const PROBE_BODY_LIMIT: usize = 1024 * 1024;

/// A probe's body, or `None` past [`PROBE_BODY_LIMIT`] or on a read error.
pub(super) async fn small_body(response: reqwest::Response) -> Option<Vec<u8>> {
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

impl HttpModelClient {
    /// The server's address without the API path (`http://host:port`), where llama.cpp's
    /// `/props`, Ollama's `/api/*` and LM Studio's `/api/v0/*` live.
    fn root(&self) -> String {
        let base = self.config.base_url.trim_end_matches('/');
        base.strip_suffix("/v1").unwrap_or(base).to_string()
    }

    async fn get_json(&self, url: &str) -> Option<Value> {
        let client = self.client().ok()?;
        self.probe(client.get(url)).await
    }

    async fn post_json(&self, url: &str, body: &Value) -> Option<Value> {
        let client = self.client().ok()?;
        self.probe(client.post(url).json(body)).await
    }

    /// A probe's JSON answer: `None` for anything but a success within the probe's time and size.
    /// A request that fails to go out is sent once more on a fresh connection: llama-server
    /// closes idle connections after 5 s, so the pooled one a count takes after a long answer
    /// may be closing as it is used.
    async fn probe(&self, request: reqwest::RequestBuilder) -> Option<Value> {
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

    /// A client that keeps no connection: each request opens its own. Otherwise the same as the
    /// client's own (same-origin redirects only, TLS, proxy rules).
    fn fresh_client(&self) -> Result<reqwest::Client, ProviderError> {
        super::client_for(&self.config.base_url, self.config.limits.connect_timeout)
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| ProviderError::new(ProviderErrorKind::Connect, e.to_string()))
    }

    async fn server_info(&self) -> &ServerInfo {
        self.local
            .server
            .get_or_init(|| async {
                let info = if self.local.options.detect {
                    self.discover().await
                } else {
                    ServerInfo::default()
                };
                *lock(&self.local.kind) = info.kind;
                if info.ollama_tools == Some(false) {
                    self.local.switch_to_text_tools(
                        "Ollama lists no tools among the model's capabilities",
                    );
                }
                info
            })
            .await
    }

    /// Asks, in order: Ollama (`/api/version`, then `/api/show`), llama.cpp (`/props`), LM Studio
    /// (`/api/v0/models`), the model list (vLLM `max_model_len`, OpenRouter `context_length`),
    /// and llama-cpp-python's tokenizer.
    async fn discover(&self) -> ServerInfo {
        let root = self.root();
        let model = &self.config.model;
        let mut info = ServerInfo::default();
        if self.config.api == Api::OpenAi
            && let Some(version) = self.get_json(&format!("{root}/api/version")).await
            && version.get("version").is_some()
        {
            info.kind = ServerKind::Ollama;
            if let Some(show) = self
                .post_json(&format!("{root}/api/show"), &json!({"model": model}))
                .await
            {
                let (context, tools) = window::from_ollama_show(&show);
                info.vision = window::vision_of_ollama(&show).map(|v| (v, "Ollama's capabilities"));
                info.ollama_context = context;
                info.ollama_tools = tools;
                info.window =
                    context.map(|n| Window::new(n, format!("Ollama context_length of {model}")));
            }
            // A model whose /api/show names no context_length: the context it is loaded with
            // (`/api/ps`) is the most the server is known to take.
            if info.window.is_none()
                && let Some(ps) = self.get_json(&format!("{root}/api/ps")).await
                && let Some(n) = window::from_ollama_ps(&ps, model)
            {
                info.ollama_context = Some(n);
                info.window = Some(Window::new(
                    n,
                    format!("Ollama's loaded context of {model}"),
                ));
            }
            return info;
        }
        if let Some(props) = self.get_json(&format!("{root}/props")).await
            && let Some(n) = window::from_props(&props)
        {
            info.kind = ServerKind::LlamaCpp;
            info.vision = window::vision_of_props(&props).map(|v| (v, "llama.cpp's modalities"));
            info.window = Some(Window::new(n, "llama.cpp n_ctx"));
            info.tokenizer = Tokenizer::LlamaCpp;
            info.slots = props
                .get("total_slots")
                .and_then(Value::as_u64)
                .filter(|&n| n > 0);
            // Older builds have no /apply-template: a request is then counted by its parts.
            info.apply_template = self
                .post_json(
                    &format!("{root}/apply-template"),
                    &json!({"messages": [{"role": "user", "content": "hi"}]}),
                )
                .await
                .is_some_and(|a| a.get("prompt").is_some_and(Value::is_string));
            return info;
        }
        if let Some(models) = self.get_json(&format!("{root}/api/v0/models")).await
            && let Some(n) = window::from_lm_studio(&models, model)
        {
            info.kind = ServerKind::LmStudio;
            info.vision =
                window::vision_of_lm_studio(&models, model).map(|v| (v, "LM Studio's model type"));
            info.window = Some(Window::new(n, "LM Studio loaded_context_length"));
            return info;
        }
        if let Some(list) = self.get_json(&self.url("models")).await {
            let owned_by_vllm = list
                .pointer("/data/0/owned_by")
                .and_then(Value::as_str)
                .is_some_and(|o| o == "vllm");
            if owned_by_vllm {
                info.kind = ServerKind::Vllm;
            } else if self.config.base_url.contains("openrouter.ai") {
                info.kind = ServerKind::OpenRouter;
            }
            let listed = parse_model_list(&list).unwrap_or_default();
            let entry = listed.iter().find(|m| &m.id == model).or(listed.first());
            if let Some(n) = entry.and_then(|m| m.context_window) {
                info.window = Some(Window::new(n, "the server's model list"));
            }
        }
        if info.kind == ServerKind::Other
            && let Some(counted) = self
                .post_json(
                    &format!("{root}/extras/tokenize/count"),
                    &json!({"input": "hi"}),
                )
                .await
            && counted.get("count").is_some()
        {
            info.kind = ServerKind::LlamaCppPython;
            info.tokenizer = Tokenizer::LlamaCppPython;
        }
        info
    }

    /// The window: the smallest of the user's setting, the window an overflow error named and
    /// the one the server reports. A setting larger than what the server has loaded can only
    /// end in overflows, so the server's word wins, and the user hears once which to change.
    pub(super) async fn local_window(&self) -> Option<Window> {
        let learned = *lock(&self.local.learned);
        let server = match learned {
            Some(n) => Some(Window::new(n, "the server's overflow error")),
            None => self.server_info().await.window.clone(),
        };
        let Some(setting) = self.local.options.context_window else {
            return server;
        };
        match server {
            Some(server) if server.tokens < setting => {
                if !self.local.window_told.swap(true, Ordering::Relaxed) {
                    self.local.notice(format!(
                        "your context window setting ({setting} tokens) is larger than the \
                         server's window ({} tokens, from {}), so {} is used; set \
                         provider.contextWindow (--context-window, TANDEM_CONTEXT_WINDOW) to {} \
                         or less, or {}",
                        server.tokens,
                        server.source,
                        server.tokens,
                        server.tokens,
                        self.local.kind().window_fix()
                    ));
                }
                Some(server)
            }
            _ => Some(Window::new(setting, "your setting")),
        }
    }

    /// The answer's bound: the user's setting, else a share of the window for a server on this
    /// machine or of a local kind (a hosted API knows its own limits).
    async fn answer_limit(&self) -> Option<u64> {
        match self.local.options.max_output_tokens {
            Some(0) => None,
            Some(n) => Some(n),
            None => {
                let local_kind = matches!(
                    self.local.kind(),
                    ServerKind::LlamaCpp
                        | ServerKind::LlamaCppPython
                        | ServerKind::LmStudio
                        | ServerKind::Ollama
                        | ServerKind::Vllm
                );
                if !(local_kind || self.is_local()) {
                    return None;
                }
                Some(tokens::answer_limit(self.local_window().await?.tokens))
            }
        }
    }

    pub(super) async fn local_count_tokens(&self, text: &str) -> Option<u64> {
        let root = self.root();
        match self.server_info().await.tokenizer {
            Tokenizer::None => None,
            Tokenizer::LlamaCpp => {
                let answer = self
                    .post_json(&format!("{root}/tokenize"), &json!({"content": text}))
                    .await?;
                answer.get("tokens")?.as_array().map(|t| t.len() as u64)
            }
            Tokenizer::LlamaCppPython => {
                let answer = self
                    .post_json(
                        &format!("{root}/extras/tokenize/count"),
                        &json!({"input": text}),
                    )
                    .await?;
                answer.get("count")?.as_u64()
            }
        }
    }

    /// The whole request as the server reads it, counted by the server: llama.cpp renders it
    /// with its own chat template (`/apply-template`, the tool definitions and the text tool
    /// prompt included) and tokenizes the result. `None` where the server can't.
    pub(super) async fn local_count_request(&self, request: CompletionRequest<'_>) -> Option<u64> {
        let info = self.server_info().await;
        if info.tokenizer != Tokenizer::LlamaCpp || !info.apply_template {
            return None;
        }
        let mut rendered = Vec::new();
        let text_mode = self.local.text_tools() && !request.tools.is_empty();
        let sent = as_sent(request, text_mode, &mut rendered);
        let body: Value =
            serde_json::from_slice(&openai::request_body(&self.config.model, sent)).ok()?;
        let root = self.root();
        let prompt = self
            .post_json(&format!("{root}/apply-template"), &body)
            .await?;
        let prompt = prompt.get("prompt")?.as_str()?;
        // As the completion does: the model's start token, the template's markers parsed.
        let answer = self
            .post_json(
                &format!("{root}/tokenize"),
                &json!({"content": prompt, "add_special": true, "parse_special": true}),
            )
            .await?;
        answer.get("tokens")?.as_array().map(|t| t.len() as u64)
    }

    /// Whether a summary request would evict the conversation's prompt cache: a llama.cpp
    /// server with one slot, or one whose slots share a cache, as a summary has shown (several
    /// slots of their own give summaries one of theirs).
    pub(super) async fn local_aside_cache(&self) -> AsideCache {
        let info = self.server_info().await;
        if info.kind != ServerKind::LlamaCpp {
            return AsideCache::Unknown;
        }
        match info.slots {
            Some(1) => AsideCache::Evicts,
            _ if self.local.asides_evicted.load(Ordering::Relaxed) => AsideCache::Evicts,
            Some(_) => AsideCache::OwnSlot,
            None => AsideCache::Unknown,
        }
    }

    /// The prompt tokens each llama.cpp slot holds (`/slots` `n_prompt_tokens`; none for a slot
    /// never used), before a request beside the conversations, where it is not known yet whether
    /// such a request evicts them. `None` elsewhere, or where `/slots` is off (`--no-slots`).
    async fn slots_before_aside(&self, purpose: Purpose) -> Option<Vec<(u64, u64)>> {
        let info = self.server_info().await;
        let watch = purpose == Purpose::Aside
            && info.kind == ServerKind::LlamaCpp
            && info.slots.is_some_and(|n| n > 1)
            && !self.local.asides_evicted.load(Ordering::Relaxed);
        if !watch {
            return None;
        }
        let slots = self.get_json(&format!("{}/slots", self.root())).await?;
        let held = slots
            .as_array()?
            .iter()
            .filter_map(|s| {
                let id = s.get("id")?.as_u64()?;
                Some((
                    id,
                    s.get("n_prompt_tokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                ))
            })
            .collect();
        Some(held)
    }

    /// After a request beside the conversations: a conversation's slot that lost its cache
    /// means the slots share one, and summaries are made without the model from now on.
    async fn note_eviction(&self, before: &[(u64, u64)]) {
        let Some(after) = self.slots_before_aside(Purpose::Aside).await else {
            return;
        };
        let aside = self
            .server_info()
            .await
            .slots
            .unwrap_or(1)
            .saturating_sub(1);
        let lost = before
            .iter()
            .any(|&(id, held)| id != aside && after.iter().any(|&(i, now)| i == id && now < held));
        if lost && !self.local.asides_evicted.swap(true, Ordering::Relaxed) {
            self.local.notice(
                "llama-server's slots share one prompt cache (its unified KV cache, the default \
                 when -np is not set): a summary made on another slot pushed this conversation \
                 out of it, so summaries are made without the model from now on; to give each \
                 slot a cache of its own, start llama-server with -np N (N conversations plus \
                 one for summaries) and without --kv-unified"
                    .into(),
            );
        }
    }

    /// The llama.cpp slot for `purpose`, where the server has slots.
    async fn slot_for(&self, purpose: Purpose) -> Option<u64> {
        let slots = self.server_info().await.slots?;
        Some(lock(&self.local.slots).slot(purpose, slots))
    }

    /// A completion with everything local models need around the wire: Ollama's native API,
    /// the text tool mode and the switch to it, tool calls found in the text (their markup kept
    /// from the user), the answer bounded, the window learned from an overflow.
    pub(super) async fn complete_local(
        &self,
        request: CompletionRequest<'_>,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, ProviderError> {
        let info = self.server_info().await;
        if let Some((false, said)) = info.vision
            && crate::images::any(request.messages)
        {
            return Err(ProviderError::new(
                ProviderErrorKind::ImagesUnsupported,
                crate::images::unsupported(&self.config.model, &self.shown_url(), said),
            ));
        }
        let ollama = info.kind == ServerKind::Ollama;
        // In native mode written markup is never a call: it is shown as it is.
        let native = self.local.options.tool_mode == ToolMode::Native;
        loop {
            let limit = self.answer_limit().await;
            self.local
                .last_limit
                .store(limit.unwrap_or(0), Ordering::Relaxed);
            let text_mode = self.local.text_tools() && !request.tools.is_empty();
            let extras = openai::Extras {
                max_tokens: limit,
                slot: self.slot_for(request.purpose).await,
            };
            let mut rendered = Vec::new();
            let sent = as_sent(request, text_mode, &mut rendered);
            let mut filter = (!native).then(MarkupFilter::new);
            let slots_before = self.slots_before_aside(request.purpose).await;
            let result = {
                let mut relay = |delta: Delta| match (delta, filter.as_mut()) {
                    (Delta::Text(text), Some(filter)) => {
                        let shown = filter.push(&text);
                        if !shown.is_empty() {
                            on_delta(Delta::Text(shown));
                        }
                    }
                    (other, _) => on_delta(other),
                };
                if ollama {
                    self.complete_ollama(sent, limit, &mut relay).await
                } else {
                    self.complete_wire(sent, extras, &mut relay).await
                }
            };
            if let Some(before) = slots_before {
                self.note_eviction(&before).await;
            }
            match result {
                Err(error)
                    if error.kind == ProviderErrorKind::ToolsUnsupported
                        && !text_mode
                        && !request.tools.is_empty()
                        && self.local.switch_to_text_tools(&error.message) =>
                {
                    self.local.notice(self.refused_tools_notice(&error.message));
                    continue;
                }
                Err(error) => {
                    if let ProviderErrorKind::ContextOverflow {
                        window: Some(window),
                        ..
                    } = error.kind
                    {
                        self.local.learn(window);
                    }
                    return Err(error);
                }
                Ok(mut completion) => {
                    let mut found = Vec::new();
                    if completion.tool_calls.is_empty() && !native {
                        let (visible, calls) =
                            extract_meant(&completion.text, request.tools, &read(request.messages));
                        if !calls.is_empty() {
                            completion.text = visible;
                            found = calls;
                        }
                    }
                    if found.is_empty() {
                        let held = filter.map(MarkupFilter::finish).unwrap_or_default();
                        if !held.is_empty() {
                            on_delta(Delta::Text(held));
                        }
                    } else {
                        completion.tool_calls = found;
                        if matches!(completion.finish_reason, None | Some(FinishReason::Stop)) {
                            completion.finish_reason = Some(FinishReason::ToolCalls);
                        }
                    }
                    return Ok(completion);
                }
            }
        }
    }

    /// What the user hears when the server refused the tool definitions, with the fix for it.
    fn refused_tools_notice(&self, said: &str) -> String {
        let fix = match self.local.kind() {
            ServerKind::LlamaCpp => {
                "for native tool calls start llama-server with --jinja (and a chat template that \
                 takes tools, --chat-template-file)"
            }
            ServerKind::Ollama => "for native tool calls use a model whose template takes tools",
            _ => {
                "for native tool calls start the server with a chat template that takes tools \
                 (llama.cpp: --jinja)"
            }
        };
        format!(
            "the model server refused the tool definitions ({}), so tools are described in the \
             prompt as text from now on, for this server and model in later sessions too; {fix}, \
             or set the tool mode to text (--tool-mode text, provider.toolMode) to skip the \
             native attempt",
            said.trim()
        )
    }

    /// Ollama's `POST /api/chat`, `num_ctx` sized to the request.
    async fn complete_ollama(
        &self,
        request: CompletionRequest<'_>,
        limit: Option<u64>,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, ProviderError> {
        let info = self.server_info().await;
        let estimate = tokens::estimate(
            request.messages,
            request.tools,
            tokens::DEFAULT_CHARS_PER_TOKEN,
        );
        let wanted = ollama::num_ctx(estimate, OLLAMA_ANSWER_RESERVE, info.ollama_context);
        let num_ctx = self
            .local
            .num_ctx
            .fetch_max(wanted, Ordering::Relaxed)
            .max(wanted);
        let body = Bytes::from(ollama::request_body(
            &self.config.model,
            request.messages,
            request.tools,
            num_ctx,
            limit,
        ));
        let url = format!("{}/api/chat", self.root());
        let client = self.client()?;
        let headers = self.headers()?;
        let stall = self.config.limits.stall_timeout;
        retrying!(
            &self.config.limits,
            {
                let attempt: Result<Completion, Failure> = async {
                    let post = client
                        .post(&url)
                        .headers(headers.clone())
                        .header(CONTENT_TYPE, "application/json")
                        .body(body.clone());
                    let response = self.send(post).await?;
                    let mut stream = response.bytes_stream();
                    let mut answer = ollama::OllamaStream::default();
                    let mut relayed = false;
                    let mut relay = |d: Delta| {
                        relayed = true;
                        on_delta(d);
                    };
                    let mut received = false;
                    let limits = &self.config.limits;
                    let mut progress = (0, tokio::time::Instant::now());
                    loop {
                        match next_chunk(&mut stream, stall).await {
                            Ok(Some(bytes)) => {
                                received = true;
                                answer.feed(&bytes, &mut relay)?;
                                super::answer::check_limits(
                                    limits,
                                    answer.buffered(),
                                    answer.progress(),
                                    &mut progress,
                                )?;
                            }
                            Ok(None) => break,
                            Err(failure) => return Err(failure),
                        }
                    }
                    answer.finish(&mut relay)?;
                    if !answer.is_finished() {
                        let mut failure = Failure::fatal(
                            ProviderErrorKind::Interrupted,
                            format!(
                                "Ollama at {} ended the answer before its last line{}",
                                self.shown_url(),
                                if received {
                                    ""
                                } else {
                                    ": it sent nothing (it may have crashed; its log says why)"
                                }
                            ),
                        );
                        if !relayed {
                            failure.retry = Retry::Backoff;
                        }
                        return Err(failure);
                    }
                    Ok(answer.into_completion())
                }
                .await;
                attempt
            },
            on_delta
        )
    }

    /// A local server closed a stream without a byte. llama-cpp-python does that for a prompt
    /// longer than its window (the reason goes to its log only), and for tools with
    /// `tool_choice: auto` under `chatml-function-calling` ("Automatic streaming tool choice is
    /// not supported"). The same request once more, not streamed, gets the overflow's 400 with
    /// its numbers, or the whole answer (relayed in one piece); a server that crashed gets the
    /// user a message that says where to look.
    pub(super) async fn unstreamed(
        &self,
        request: CompletionRequest<'_>,
        url: &str,
        headers: &HeaderMap,
        body: &Bytes,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, ProviderError> {
        let estimate = tokens::estimate(
            request.messages,
            request.tools,
            tokens::DEFAULT_CHARS_PER_TOKEN,
        );
        let hint = || {
            ProviderError::new(
                ProviderErrorKind::EmptyStream,
                format!(
                    "the model server at {} closed the stream without sending anything. A local \
                     server does this when a request does not fit its context window (this one \
                     is about {estimate} tokens) or when it crashed: its log (the terminal it \
                     runs in) says which. For the context, start it with a larger context size \
                     (llama.cpp --ctx-size, llama-cpp-python --n_ctx) or set \
                     provider.contextWindow",
                    self.shown_url()
                ),
            )
        };
        if self.config.api != Api::OpenAi {
            return Err(hint());
        }
        let Ok(mut whole) = serde_json::from_slice::<Value>(body) else {
            return Err(hint());
        };
        whole["stream"] = Value::Bool(false);
        if let Some(object) = whole.as_object_mut() {
            object.remove("stream_options");
        }
        // A fresh connection: uvicorn closes idle ones after 5 s, and the one the empty stream
        // came on may be closing, so a pooled one could be dead on arrival.
        let client = self.fresh_client()?;
        let mut answer = Err(Failure::fatal(ProviderErrorKind::Connect, "not sent"));
        // Twice at most, for a connection refused while the server restarts its worker.
        for _ in 0..2 {
            let post = client.post(url).headers(headers.clone()).json(&whole);
            answer = self
                .attempt::<crate::openai::OpenAiStream>(
                    post,
                    crate::openai::parse_completion,
                    on_delta,
                )
                .await;
            if !matches!(&answer, Err(f) if f.error.kind == ProviderErrorKind::Connect) {
                break;
            }
        }
        match answer {
            Ok(completion) => Ok(completion),
            Err(failure) => match failure.error.kind {
                ProviderErrorKind::ContextOverflow { window, .. } => {
                    if let Some(window) = window {
                        self.local.learn(window);
                    }
                    Err(failure.error)
                }
                _ => {
                    let mut error = hint();
                    error.message = format!(
                        "{} (asked again without streaming: {})",
                        error.message, failure.error.message
                    );
                    Err(error)
                }
            },
        }
    }

    /// Adds what to do to errors whose cause is usually the settings.
    pub(super) fn explain(&self, mut error: ProviderError, url: &str) -> ProviderError {
        if error.kind == ProviderErrorKind::Status(404) {
            let base = self.shown_url();
            let base = base.trim_end_matches('/');
            let shown = url.replace(
                &self.config.base_url.trim_end_matches('/').to_string(),
                base,
            );
            let fix = if base.ends_with("/v1") {
                "check the base URL and the model name".to_string()
            } else {
                format!("most servers serve the API under /v1: try the base URL {base}/v1")
            };
            error.message = format!("{} (the URL used was {shown}; {fix})", error.message);
        }
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversations_keep_their_slots_and_asides_get_the_last() {
        let mut table = SlotTable::default();
        let (a, b, c) = (
            Purpose::Conversation(10),
            Purpose::Conversation(20),
            Purpose::Conversation(30),
        );
        // Four slots: three for conversations, the last for summaries.
        assert_eq!(table.slot(a, 4), 0);
        assert_eq!(table.slot(b, 4), 1);
        assert_eq!(table.slot(Purpose::Aside, 4), 3);
        assert_eq!(table.slot(a, 4), 0);
        assert_eq!(table.slot(c, 4), 2);
        // A fourth conversation takes the slot used least recently (b's).
        assert_eq!(table.slot(Purpose::Conversation(40), 4), 1);
        assert_eq!(table.slot(a, 4), 0);
        // One slot: everything shares it.
        let mut one = SlotTable::default();
        assert_eq!(one.slot(a, 1), 0);
        assert_eq!(one.slot(b, 1), 0);
        assert_eq!(one.slot(Purpose::Aside, 1), 0);
    }

    #[test]
    fn rules_and_results_are_read_the_fixed_prompt_is_not() {
        let messages = [
            Message::System {
                content: "prompt".into(),
            },
            Message::System {
                content: "rules".into(),
            },
            Message::user("task"),
            Message::Assistant {
                content: "mine".into(),
                reasoning: String::new(),
                tool_calls: Vec::new(),
            },
            Message::Tool {
                tool_call_id: "1".into(),
                content: "result".into(),
            },
        ];
        assert_eq!(read(&messages), ["rules", "task", "result"]);
    }

    #[test]
    fn statuses_that_say_what_they_are() {
        let overflow = br#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, you requested 3039 tokens (3031 in the messages, 8 in the completion).","code":"context_length_exceeded"}}"#;
        let message = crate::error_body::message_from_body(overflow).unwrap();
        assert_eq!(
            classify_status(400, overflow, &message),
            Some(ProviderErrorKind::ContextOverflow {
                window: Some(2048),
                requested: Some(3039)
            })
        );
        assert_eq!(
            classify_status(
                400,
                br#"{"error":"llama2 does not support tools"}"#,
                "llama2 does not support tools"
            ),
            Some(ProviderErrorKind::ToolsUnsupported)
        );
        assert_eq!(classify_status(401, b"{}", "bad key"), None);
    }
}
