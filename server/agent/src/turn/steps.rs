//! The loop of a turn, made of its parts: prepare the request (`prepare`), stream the answer
//! (`stream`), record it (`record`), run its tool calls (`dispatch`), and stop when a rule says
//! so (`stop`).

use super::Turn;
use super::stop::{self, Ended, MAX_STOP_CONTINUATIONS, StopRules};
use crate::events::{Event, StopReason, TurnErrorKind};
use crate::prompt::{self, ContextItem, ContextKind};
use tandem_model::{Message, ToolCall, ToolCallId};
use tandem_provider::ProviderError;
use tandem_tools::FetchUrl;

impl Turn {
    /// The parent's turn: opened, then its steps until it ends and no `Stop` hook keeps it
    /// going (at most [`MAX_STOP_CONTINUATIONS`] times, within the turn's one step cap).
    pub(super) async fn run_steps(&self, text: String, context: Vec<ContextItem>) -> Ended {
        let mut conversation = self.session.conversation.lock().await;
        if let Some(ended) = self.open(&mut conversation, text, context).await {
            if let Some(why) = self.stop_hooks(&ended, false).await {
                self.emit(Event::Notice {
                    message: format!(
                        "Your Stop hook asked the model to go on ({why}), but the prompt never \
                         reached it; the turn ends."
                    ),
                });
            }
            return ended;
        }
        let mut rules = StopRules::new(self.agent.inner.settings.max_steps);
        let mut kept_going = 0;
        loop {
            let ended = self.steps_under(&mut conversation, &mut rules).await;
            let Some(why) = self.stop_hooks(&ended, kept_going > 0).await else {
                return ended;
            };
            if kept_going >= MAX_STOP_CONTINUATIONS {
                self.emit(Event::Notice {
                    message: format!(
                        "Your Stop hook asked the model to go on again ({why}), but it already \
                         kept this turn going {MAX_STOP_CONTINUATIONS} times, Tandem's bound; \
                         the turn ends here. Check the hook's `stop_hook_active` to avoid a \
                         loop, or send a prompt to continue."
                    ),
                });
                return ended;
            }
            kept_going += 1;
            self.emit(Event::Notice {
                message: format!(
                    "Your Stop hook keeps the turn going ({kept_going} of at most \
                     {MAX_STOP_CONTINUATIONS}): {why}"
                ),
            });
            self.record_message(
                &mut conversation,
                Message::user(format!(
                    "[The user's Stop hook says the task is not finished yet:]\n{why}"
                )),
            );
        }
    }

    /// The steps on an opened conversation: a subagent's own (`task`), with its step cap.
    pub(super) async fn steps(&self, conversation: &mut Vec<Message>) -> Ended {
        let max_steps = match &self.child {
            Some(child) => child.max_steps,
            None => self.agent.inner.settings.max_steps,
        };
        self.steps_under(conversation, &mut StopRules::new(max_steps))
            .await
    }

    /// The steps until the model answers with text alone, an error, a cancel or the cap of
    /// `rules` (shared by the steps a `Stop` hook adds to the turn).
    async fn steps_under(&self, conversation: &mut Vec<Message>, rules: &mut StopRules) -> Ended {
        while rules.next_step() && self.tree.take(self.agent.inner.settings.max_steps) {
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
                        self.tree.give_back();
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
                let client = self.client();
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
    /// into the conversation, after the session's first-turn setup and the user's prompt hooks
    /// (with their context); the face told. Then the pages the user attached are fetched.
    /// `Some` when a hook refused the prompt or the user cancelled meanwhile.
    async fn open(
        &self,
        conversation: &mut Vec<Message>,
        text: String,
        context: Vec<ContextItem>,
    ) -> Option<Ended> {
        self.session.set_title_once(&text);
        let context = self.read_linked_files(context).await;
        let mut user = prompt::user_message(&self.session.workspace, &text, &context);
        if let Some(note) = self.session.mode().note() {
            user = format!("{user}\n\n{note}");
        }
        let root = self.session.workspace.root();
        let paths = (context.iter().filter(|c| c.in_workspace()))
            .map(|c| root.join(&c.path))
            .collect();
        self.emit(Event::TurnStarted {
            prompt: text.clone(),
            context: paths,
        });
        self.first_turn(conversation).await;
        match self.prompt_hooks(&text).await {
            Err(ended) => return Some(ended),
            Ok(Some(hooked)) => user = format!("{user}\n\n{hooked}"),
            Ok(None) => {}
        }
        let images = self.images.clone();
        self.record_message(
            conversation,
            Message::User {
                content: user,
                images,
            },
        );
        self.fetch_attached(conversation, &context).await
    }

    /// The URLs the user attached, each fetched as a `fetch_url` call of the turn's own: the same
    /// approval, checks and caps as the model's, and every face shows it as a call.
    async fn fetch_attached(
        &self,
        conversation: &mut Vec<Message>,
        context: &[ContextItem],
    ) -> Option<Ended> {
        let calls: Vec<ToolCall> = (context.iter())
            .filter(|c| c.kind == ContextKind::Url)
            .map(|c| ToolCall {
                id: ToolCallId::generate(),
                name: FetchUrl::NAME.to_string(),
                arguments: serde_json::json!({ "url": c.path }).to_string(),
            })
            .collect();
        if calls.is_empty() {
            return None;
        }
        self.record_message(
            conversation,
            Message::Assistant {
                content: String::new(),
                reasoning: String::new(),
                tool_calls: calls.clone(),
            },
        );
        self.run_calls(conversation, &calls, None).await
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
