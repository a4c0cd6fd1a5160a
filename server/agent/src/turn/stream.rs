//! Streaming a step's answer: each piece to the face as it comes, the whole into the history,
//! until the model is done, the request fails, or the user cancels.

use super::Turn;
use crate::events::Event;
use tandem_model::{Completion, Delta, Message, ToolDefinition};
use tandem_provider::{CompletionRequest, ProviderError};

/// What a step's request came to.
pub(super) struct Streamed {
    /// The text and reasoning as streamed (what the user saw, even when the request failed).
    pub text: String,
    pub reasoning: String,
    /// `None`: the user cancelled.
    pub result: Option<Result<Completion, ProviderError>>,
}

impl Turn {
    pub(super) async fn stream(
        &self,
        conversation: &[Message],
        tools: &[ToolDefinition],
    ) -> Streamed {
        let client = self.client();
        let mut text = String::new();
        let mut reasoning = String::new();
        let result = {
            let mut on_delta = |delta: Delta| match delta {
                Delta::Text(t) => {
                    text.push_str(&t);
                    self.tell(Event::Text { delta: t });
                }
                Delta::Reasoning(t) => {
                    reasoning.push_str(&t);
                    self.tell(Event::Reasoning { delta: t });
                }
                // Told, not recorded: it means nothing once the request got through.
                Delta::Retrying(r) => self.tell(Event::Retrying(r)),
            };
            let key = self.conversation_key();
            let request = CompletionRequest::conversation(conversation, tools, key);
            tokio::select! {
                r = client.complete(request, &mut on_delta) => Some(r),
                () = self.cancel.cancelled() => None,
            }
        };
        self.record_streamed(&reasoning, &text);
        for message in client.take_notices() {
            self.emit(Event::Notice { message });
        }
        Streamed {
            text,
            reasoning,
            result,
        }
    }
}
