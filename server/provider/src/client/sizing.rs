//! Window probing (a layer around the backends): the window requests must fit, the answer's
//! bound, and tokens counted by the server's own tokenizer where it has one.

use std::sync::atomic::Ordering;

use serde_json::Value;
use tandem_stdx::lock;

use super::HttpModelClient;
use super::detect::Tokenizer;
use super::textmode;
use crate::window::Window;
use crate::{CompletionRequest, ServerKind, llamacpp, openai, tokens};

impl HttpModelClient {
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
    pub(super) async fn answer_limit(&self) -> Option<u64> {
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
                if !(local_kind || self.transport.is_loopback()) {
                    return None;
                }
                Some(tokens::answer_limit(self.local_window().await?.tokens))
            }
        }
    }

    pub(super) async fn local_count_tokens(&self, text: &str) -> Option<u64> {
        match self.server_info().await.tokenizer {
            Tokenizer::None => None,
            Tokenizer::LlamaCpp => llamacpp::count_tokens(&self.transport, text).await,
            Tokenizer::LlamaCppPython => llamacpp::python_count_tokens(&self.transport, text).await,
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
        let sent = textmode::as_sent(request, text_mode, &mut rendered);
        let body: Value =
            serde_json::from_slice(&openai::request_body(&self.config.model, sent)).ok()?;
        llamacpp::count_request(&self.transport, &body).await
    }
}
