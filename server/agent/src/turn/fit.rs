//! Sizing a request to the model's window: what is known of it, and the characters-per-token
//! estimate calibrated from the server's own counts.

use super::Turn;
use super::stop::Sent;
use crate::context::{self, Sizing, count};
use crate::events::Event;
use tandem_model::{Completion, Message, ToolDefinition};
use tandem_provider::{ProviderError, ProviderErrorKind, ServerKind, tokens};

impl Turn {
    /// The window and the kind of server, when the window is known.
    pub(super) async fn sizing(&self) -> Option<Sizing> {
        let window = self.window().await?;
        let client = self.client();
        Some(Sizing {
            window,
            kind: client.server_kind(),
            counter: tandem_stdx::lock(&self.agent.inner.counter).clone(),
            text_tools: client.text_tools(),
            answer_limit: client.output_limit(),
        })
    }

    /// Learns the request's count from the usage the server reported. A report of far fewer
    /// tokens than were sent means the server cut the prompt (Ollama's default context) or its
    /// chat template dropped the tools: the user is told, and in auto mode tools go as text.
    pub(super) async fn calibrate(
        &self,
        completion: &Completion,
        sent: &[Message],
        tools: &[ToolDefinition],
    ) {
        let shared = tandem_stdx::lock(&self.agent.inner.sent).shared_then_record(sent);
        let Some(usage) = completion.usage.filter(|u| u.prompt_tokens > 0) else {
            return;
        };
        let tools_chars = tokens::tools_chars(tools);
        let chars = sent.iter().map(tokens::message_chars).sum::<u64>() + tools_chars;
        let messages = sent.len();
        let had_tools = tools_chars > 0;
        let client = self.client();
        // What the count of the messages leaves over is the template's framing: each message
        // counted exactly first, so an estimate's error is not learnt as framing.
        count::count_messages(client.as_ref(), &self.agent.inner.counter, sent).await;
        if had_tools
            && !client.text_tools()
            && context::counts_whole_prompt(client.server_kind())
            && let Some(tools) = context::tools_dropped(usage.prompt_tokens, tools_chars)
            && client.switch_to_text_tools()
        {
            self.emit(Event::Notice {
                message: context::tools_dropped_message(usage.prompt_tokens, tools),
            });
            return;
        }
        let shape = count::Shape {
            tools,
            text_tools: client.text_tools(),
        };
        let counter = &self.agent.inner.counter;
        let ollama = client.server_kind() == ServerKind::Ollama;
        // Ollama counts only what it evaluated, not what its cache held: only the messages no
        // earlier request began with are sure to be in its count (the system prompt and the
        // tools never are: another session, or an earlier run, may have sent the same).
        let (chars, messages) = if ollama {
            let fresh = &sent[shared.max(1).min(sent.len())..];
            (
                fresh.iter().map(tokens::message_chars).sum::<u64>(),
                fresh.len(),
            )
        } else {
            (chars, messages)
        };
        match context::calibrated(chars, messages, usage.prompt_tokens) {
            // A lower bound of the whole request.
            Some(_) if ollama => {
                tandem_stdx::lock(counter).learn_at_least(sent, shape, usage.prompt_tokens);
            }
            Some(_) => {
                tandem_stdx::lock(counter).learn(sent, shape, usage.prompt_tokens);
            }
            // A small request is too small to tell a cut from a scripted or odd count.
            None if tokens::tokens_for(chars, messages, 4.0) < 2048 => {}
            None => {
                let expected = tokens::tokens_for(chars, messages, 4.0);
                let of = if ollama {
                    "of the request's new part, about"
                } else {
                    "of a request of about"
                };
                let mut message = format!(
                    "the model server reports reading {} tokens {of} {}: it cut the prompt \
                     (Ollama does at its default context size; set a larger context) or its chat \
                     template dropped part of it, such as the tool definitions",
                    context::group(usage.prompt_tokens),
                    context::group(expected)
                );
                if had_tools && client.switch_to_text_tools() {
                    message.push_str("; tools are described in the prompt from now on");
                }
                self.emit(Event::Notice { message });
            }
        }
    }

    /// The server counted more tokens than estimated: the count of what was sent goes up to
    /// match (never down: an overflow's count may include the answer's room).
    pub(super) async fn calibrate_down(
        &self,
        sent: &[Message],
        tools: &[ToolDefinition],
        counted: u64,
    ) {
        let counter = &self.agent.inner.counter;
        count::count_messages(self.client().as_ref(), counter, sent).await;
        let shape = count::Shape {
            tools,
            text_tools: self.client().text_tools(),
        };
        tandem_stdx::lock(counter).learn_at_least(sent, shape, counted);
    }

    /// An error for the user; an overflow gets its numbers and the fix.
    pub(super) async fn overflow_message(&self, error: tandem_provider::ProviderError) -> String {
        let ProviderErrorKind::ContextOverflow { window, requested } = error.kind else {
            return error.message;
        };
        let window = match window {
            Some(n) => format!("{} tokens", context::group(n)),
            None => "not known".into(),
        };
        let requested = requested
            .map(|n| format!("about {} tokens", context::group(n)))
            .unwrap_or_else(|| "more than fits".into());
        format!(
            "the request does not fit the model's context window: it was {requested}; the \
             window is {window}. To go on, {} or shorten the message. (The server said: {})",
            self.client().server_kind().window_fix(),
            error.message
        )
    }

    /// A refusal for size teaches what it can: the server's count of the request lowers the
    /// estimate, and a refusal naming no window leaves a guess of one (three quarters of what
    /// was sent).
    pub(super) async fn learn_from_overflow(
        &self,
        error: &ProviderError,
        sent: Sent,
        conversation: &[Message],
        tools: &[ToolDefinition],
    ) {
        let ProviderErrorKind::ContextOverflow { window, requested } = error.kind else {
            return;
        };
        if let Some(counted) = requested {
            self.calibrate_down(conversation, tools, counted).await;
        }
        if window.is_none() {
            let sent = requested.unwrap_or_else(|| {
                tokens::tokens_for(sent.chars, sent.messages, context::START_RATIO)
            });
            *tandem_stdx::lock(&self.agent.inner.guessed_window) = Some(sent * 3 / 4);
        }
    }
}
