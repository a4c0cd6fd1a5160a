//! What a turn tells the face and keeps in the history: events, messages, usage.

use time::OffsetDateTime;

use super::Turn;
use crate::events::Event;
use crate::transcript::Record;
use tandem_model::{Completion, FinishReason, Message, ToolCall, ToolCallId};

impl Turn {
    /// Sends an event to the face and, unless it is a streaming piece, into the history.
    pub(super) fn emit(&self, event: Event) {
        let event = self.tagged(event);
        if !event.is_piece() {
            self.session.record_update(&self.turn_id, event.clone());
        }
        self.frontend.update(&self.session.id, &self.turn_id, event);
    }

    /// Sends an event to the face only (a piece, a transient notice).
    pub(super) fn tell(&self, event: Event) {
        self.frontend
            .update(&self.session.id, &self.turn_id, self.tagged(event));
    }

    /// Puts an event into the history only.
    pub(super) fn keep(&self, event: Event) {
        self.session
            .record_update(&self.turn_id, self.tagged(event));
    }

    /// A subagent's event, under its `task` call; the parent's as it is.
    pub(super) fn tagged(&self, event: Event) -> Event {
        match &self.child {
            Some(child) => Event::Subagent {
                parent: child.parent.clone(),
                agent: child.agent.clone(),
                event: Box::new(event),
            },
            None => event,
        }
    }

    pub(super) fn record_message(&self, conversation: &mut Vec<Message>, message: Message) {
        // A subagent's conversation is its own: the parent's (rebuilt from these records on
        // resume) has only the `task` call's result. Its events are kept, tagged.
        if self.child.is_some() {
            conversation.push(message);
            return;
        }
        self.session.save_images(&message);
        self.session.persist(&Record::Message {
            turn_id: self.turn_id.clone(),
            at: OffsetDateTime::now_utc(),
            message: (&message).into(),
        });
        conversation.push(message);
    }

    /// Puts the streamed text and reasoning of a step into the history, one entry each.
    pub(super) fn record_streamed(&self, reasoning: &str, text: &str) {
        if !reasoning.is_empty() {
            self.keep(Event::Reasoning {
                delta: reasoning.to_string(),
            });
        }
        if !text.is_empty() {
            self.keep(Event::Text {
                delta: text.to_string(),
            });
        }
    }

    /// Keeps what the model said before a cancel or an error, so the next prompt has it.
    pub(super) fn keep_partial(
        &self,
        conversation: &mut Vec<Message>,
        text: String,
        reasoning: String,
    ) {
        if text.is_empty() {
            return;
        }
        self.record_message(
            conversation,
            Message::Assistant {
                content: format!("{text}\n\n[interrupted]"),
                reasoning,
                tool_calls: Vec::new(),
            },
        );
    }

    pub(super) async fn report_usage(&self, completion: &Completion) {
        let Some(usage) = completion.usage else {
            return;
        };
        let context_window = self.window().await.map(|w| w.tokens);
        self.emit(Event::Usage {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            context_window,
        });
    }

    /// Puts the model's answer into the conversation: its full text (the streamed text when the
    /// server sent none at the end, its refusal when it said nothing else) and its tool calls,
    /// each with an id. Returns the calls and why the model stopped.
    pub(super) fn record_answer(
        &self,
        conversation: &mut Vec<Message>,
        completion: Completion,
        text: String,
        reasoning: String,
    ) -> (Vec<ToolCall>, Option<FinishReason>) {
        let Completion {
            text: full_text,
            reasoning: full_reasoning,
            refusal,
            mut tool_calls,
            finish_reason,
            ..
        } = completion;
        let mut content = if full_text.is_empty() {
            text
        } else {
            full_text
        };
        if content.is_empty()
            && let Some(refusal) = refusal
        {
            self.emit(Event::Text {
                delta: refusal.clone(),
            });
            self.keep(Event::Text {
                delta: refusal.clone(),
            });
            content = refusal;
        }
        for call in &mut tool_calls {
            if call.id.is_empty() {
                call.id = ToolCallId::generate();
            }
            if let Some(child) = &self.child {
                call.id = child.call_id(&call.id);
            }
        }
        self.record_message(
            conversation,
            Message::Assistant {
                content,
                reasoning: if full_reasoning.is_empty() {
                    reasoning
                } else {
                    full_reasoning
                },
                tool_calls: tool_calls.clone(),
            },
        );
        (tool_calls, finish_reason)
    }
}
