//! What the client keeps between requests to one endpoint: the server's kind and what it said of
//! itself, the window an overflow named, the tool mode and its switch, Ollama's `num_ctx`, the
//! llama.cpp slots, and the notices the user is owed.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tandem_stdx::lock;
use tokio::sync::OnceCell;

use super::detect::ServerInfo;
use crate::llamacpp::SlotTable;
use crate::{LocalOptions, ServerKind, ToolMode};

pub(crate) struct LocalState {
    pub options: LocalOptions,
    /// What the server said of itself, asked once (`detect`).
    pub server: OnceCell<ServerInfo>,
    pub kind: Mutex<ServerKind>,
    /// The window an overflow error named.
    pub learned: Mutex<Option<u64>>,
    pub text_tools: AtomicBool,
    /// Ollama's `num_ctx` never shrinks within a session: each change reloads the model.
    pub num_ctx: AtomicU64,
    /// The `max_tokens` of the last request (0: none).
    pub last_limit: AtomicU64,
    /// Which llama.cpp slot each conversation is pinned to.
    pub slots: Mutex<SlotTable>,
    /// For the user, once each: see [`crate::ModelClient::take_notices`].
    pub notices: Mutex<Vec<String>>,
    /// Whether the user was told their window setting is larger than the server's.
    pub window_told: AtomicBool,
    /// Seen: a summary request on its own slot emptied a conversation's slot (llama.cpp with a
    /// unified KV cache, the default when the slots are not set, shares one cache between them).
    pub asides_evicted: AtomicBool,
    /// The endpoint and model, for the memory.
    pub base_url: String,
    pub model: String,
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

    pub fn notice(&self, message: String) {
        lock(&self.notices).push(message);
    }

    pub fn learn(&self, window: u64) {
        *lock(&self.learned) = Some(window);
    }
}
