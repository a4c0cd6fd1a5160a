//! One completion with everything local models need around the backend: the text tool mode and
//! the switch to it, tool calls found in the text, the answer bounded, the window learned from an
//! overflow, the llama.cpp slot, and Ollama's native API chosen where it answers.

use std::sync::atomic::Ordering;

use bytes::Bytes;
use tandem_model::{Completion, Delta};

use super::HttpModelClient;
use super::textmode::{self, TextCalls};
use crate::{
    CompletionRequest, ProviderError, ProviderErrorKind, ServerKind, ToolMode, images, ollama,
    openai, tokens,
};

/// Tokens kept free for the answer when sizing Ollama's `num_ctx`.
const OLLAMA_ANSWER_RESERVE: u64 = 2048;

impl HttpModelClient {
    pub(super) async fn complete_local(
        &self,
        request: CompletionRequest<'_>,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Completion, ProviderError> {
        let info = self.server_info().await;
        if let Some((false, said)) = info.vision
            && images::any(request.messages)
        {
            return Err(ProviderError::new(
                ProviderErrorKind::ImagesUnsupported,
                images::unsupported(&self.config.model, &self.transport.shown_url(), said),
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
            let sent = textmode::as_sent(request, text_mode, &mut rendered);
            let mut calls = TextCalls::new(native);
            let slots_before = self.slots_before_aside(request.purpose).await;
            let result = {
                let mut relay = |delta: Delta| calls.relay(delta, on_delta);
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
                    tracing::info!("the server refused the tool definitions: tools go as text now");
                    self.local.notice(textmode::refused_tools_notice(
                        self.local.kind(),
                        &error.message,
                    ));
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
                    calls.finish(&mut completion, request, on_delta);
                    return Ok(completion);
                }
            }
        }
    }

    /// Ollama's `POST /api/chat`, `num_ctx` sized to the request (it never shrinks within a
    /// session: each change reloads the model).
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
        ollama::complete(&self.transport, body, on_delta).await
    }
}
