//! The loop of a turn, made of its parts: prepare the request (`prepare`), stream the answer
//! (`stream`), record it (`record`), run its tool calls (`dispatch`), and stop when a rule says
//! so (`stop`).

use super::Turn;
use super::stop::{self, Ended, StopRules};
use crate::events::{Event, StopReason, TurnErrorKind};
use crate::prompt::{self, ContextItem};
use tandem_model::Message;
use tandem_provider::ProviderError;

impl Turn {
    pub(super) async fn run_steps(&self, text: String, context: Vec<ContextItem>) -> Ended {
        let mut conversation = self.session.conversation.lock().await;
        self.open(&mut conversation, text, context).await;
        self.steps(&mut conversation).await
    }

    /// The steps on an opened conversation: the parent's, or a subagent's own (`task`).
    pub(super) async fn steps(&self, conversation: &mut Vec<Message>) -> Ended {
        let max_steps = match &self.child {
            Some(child) => child.max_steps,
            None => self.agent.inner.settings.max_steps,
        };
        let mut rules = StopRules::new(max_steps);
        while rules.next_step() {
            let request = match self.prepare(conversation).await {
                Ok(request) => request,
                Err(ended) => return ended,
            };
            if let Some(error) = rules.refused_again(request.sent) {
                return self.failed(error).await;
            }
            let streamed = self.stream(conversation, &request.tools).await;
            let completion = match streamed.result {
                None => {
                    self.keep_partial(conversation, streamed.text, streamed.reasoning);
                    return (StopReason::Cancelled, None);
                }
                Some(Err(e)) => {
                    if rules.may_retry(&e, !streamed.text.is_empty()) {
                        // Learnt (or guessed) the window, and the server's own count of the
                        // request corrects the estimate: fit again and try once more, never
                        // with the same request.
                        self.learn_from_overflow(&e, request.sent, conversation, &request.tools)
                            .await;
                        rules.retrying(request.sent, e);
                        continue;
                    }
                    self.keep_partial(conversation, streamed.text, streamed.reasoning);
                    return self.failed(e).await;
                }
                Some(Ok(c)) => c,
            };
            self.report_usage(&completion).await;
            self.calibrate(&completion, conversation, &request.tools)
                .await;
            let (tool_calls, finish_reason) =
                self.record_answer(conversation, completion, streamed.text, streamed.reasoning);
            if tool_calls.is_empty() {
                let client = &self.agent.inner.client;
                return stop::answered(finish_reason, client.output_limit(), client.server_kind());
            }
            if let Some(ended) = self
                .run_calls(conversation, &tool_calls, request.sizing.as_ref())
                .await
            {
                return ended;
            }
            if self.cancel.is_cancelled() {
                return (StopReason::Cancelled, None);
            }
        }
        (StopReason::MaxSteps, None)
    }

    /// Opens the turn: the user's message (with the linked files' text and the mode's note)
    /// into the conversation, after the session's first-turn setup; the face told.
    async fn open(&self, conversation: &mut Vec<Message>, text: String, context: Vec<ContextItem>) {
        self.session.set_title_once(&text);
        let context = self.read_linked_files(context).await;
        let mut user = prompt::user_message(&self.session.workspace, &text, &context);
        if let Some(note) = self.session.mode().note() {
            user = format!("{user}\n\n{note}");
        }
        let root = self.session.workspace.root();
        let paths = context.iter().map(|c| root.join(&c.path)).collect();
        self.emit(Event::TurnStarted {
            prompt: text,
            context: paths,
        });
        self.first_turn(conversation).await;
        let images = self.images.clone();
        self.record_message(
            conversation,
            Message::User {
                content: user,
                images,
            },
        );
    }

    /// The turn ends with the request's error (an overflow with its numbers and the fix).
    async fn failed(&self, error: ProviderError) -> Ended {
        let kind = TurnErrorKind::of(&error);
        (
            StopReason::Error,
            Some((kind, self.overflow_message(error).await)),
        )
    }
}
