//! The loop of a turn: fit the request, stream the answer, record it, run the tools it calls,
//! until a stop rule ends it.

use time::OffsetDateTime;

use super::Turn;
use crate::context::{self, Fit, SMALL_WINDOW, Sizing};
use crate::events::{Event, StopReason, TurnErrorKind};
use crate::prompt::{self, ContextItem};
use crate::transcript::Record;
use tandem_model::{Completion, Delta, FinishReason, Message, ToolDefinition};
use tandem_provider::{CompletionRequest, ProviderErrorKind, tokens};

impl Turn {
    pub(super) async fn run_steps(
        &self,
        text: String,
        context: Vec<ContextItem>,
    ) -> (StopReason, Option<(TurnErrorKind, String)>) {
        let mut conversation = self.session.conversation.lock().await;
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
        self.first_turn(&mut conversation).await;
        self.record_message(&mut conversation, Message::User { content: user });
        let client = self.agent.inner.client.clone();
        let max_steps = self.agent.inner.settings.max_steps;

        let mut overflow_retried = false;
        // The size of the request a server refused for size: never sent again unchanged.
        let mut refused: Option<(u64, usize, tandem_provider::ProviderError)> = None;
        let mut step = 0;
        while step < max_steps {
            step += 1;
            let sizing = self.sizing().await;
            let small = sizing
                .as_ref()
                .is_some_and(|s| s.window.tokens <= SMALL_WINDOW);
            let base: &[ToolDefinition] = if small {
                &self.agent.inner.compact_tools
            } else {
                &self.agent.inner.tools
            };
            // MCP servers' tools beside the built-in ones, within the window's budget.
            let mut all_tools = self
                .with_mcp_tools(base, sizing.as_ref().map(|s| s.window.tokens))
                .await;
            // Read at each step: the user may switch modes while the turn runs.
            let mode = self.session.mode();
            all_tools.retain(|t| mode.allows(&t.name));
            let tools: &[ToolDefinition] = &all_tools;
            if small && let Some(Message::System { content }) = conversation.first_mut() {
                *content = prompt::compact_system_prompt(self.session.workspace.root());
            }
            if let Some(sizing) = &sizing {
                if step == 1 {
                    self.calibrate_with_tokenizer(&conversation).await;
                }
                let sizing = Sizing {
                    ratio: *tandem_stdx::lock(&self.agent.inner.ratio),
                    ..sizing.clone()
                };
                match context::fit(client.as_ref(), &mut conversation, tools, &sizing).await {
                    Fit::Fits => {}
                    Fit::Compacted(report) => {
                        self.session.persist(&Record::Compaction {
                            turn_id: self.turn_id.clone(),
                            at: OffsetDateTime::now_utc(),
                            elided: report.elided,
                            summarized: report.summarized,
                            summary: report.summary.clone(),
                        });
                        self.emit(Event::Compaction {
                            elided: report.elided,
                            summarized: report.summarized,
                            tokens_before: report.tokens_before,
                            tokens_after: report.tokens_after,
                            context_window: sizing.window.tokens,
                        });
                    }
                    Fit::TooSmall(message) => {
                        return (
                            StopReason::Error,
                            Some((TurnErrorKind::ContextOverflow, message)),
                        );
                    }
                }
            }
            let tools_chars = tokens::tools_chars(tools);
            let sent_chars: u64 =
                conversation.iter().map(tokens::message_chars).sum::<u64>() + tools_chars;
            let sent_messages = conversation.len();
            if let Some((chars, messages, error)) = refused.take()
                && (chars, messages) == (sent_chars, sent_messages)
            {
                let kind = TurnErrorKind::of(&error);
                return (
                    StopReason::Error,
                    Some((kind, self.overflow_message(error).await)),
                );
            }
            let mut text = String::new();
            let mut reasoning = String::new();
            let result = {
                let frontend = &self.frontend;
                let (session_id, turn_id) = (&self.session.id, &self.turn_id);
                let mut on_delta = |delta: Delta| match delta {
                    Delta::Text(t) => {
                        text.push_str(&t);
                        frontend.update(session_id, turn_id, Event::Text { delta: t });
                    }
                    Delta::Reasoning(t) => {
                        reasoning.push_str(&t);
                        frontend.update(session_id, turn_id, Event::Reasoning { delta: t });
                    }
                };
                let request = CompletionRequest {
                    messages: &conversation,
                    tools,
                };
                tokio::select! {
                    r = client.complete(request, &mut on_delta) => Some(r),
                    () = self.cancel.cancelled() => None,
                }
            };
            self.record_streamed(&reasoning, &text);
            for message in client.take_notices() {
                self.emit(Event::Notice { message });
            }
            let completion = match result {
                None => {
                    self.keep_partial(&mut conversation, text, reasoning);
                    return (StopReason::Cancelled, None);
                }
                Some(Err(e)) => {
                    if let ProviderErrorKind::ContextOverflow { window, requested } = e.kind
                        && !overflow_retried
                        && text.is_empty()
                    {
                        // Learnt (or guessed) the window, and the server's own count of the
                        // request corrects the estimate: fit again and try once more, never
                        // with the same request.
                        overflow_retried = true;
                        if let Some(counted) = requested {
                            self.calibrate_down(sent_chars, sent_messages, counted);
                        }
                        refused = Some((sent_chars, sent_messages, e));
                        if window.is_none() {
                            let sent = requested.unwrap_or_else(|| {
                                tokens::tokens_for(sent_chars, sent_messages, context::START_RATIO)
                            });
                            *tandem_stdx::lock(&self.agent.inner.guessed_window) =
                                Some(sent * 3 / 4);
                        }
                        step -= 1;
                        continue;
                    }
                    self.keep_partial(&mut conversation, text, reasoning);
                    let kind = TurnErrorKind::of(&e);
                    return (
                        StopReason::Error,
                        Some((kind, self.overflow_message(e).await)),
                    );
                }
                Some(Ok(c)) => c,
            };
            self.report_usage(&completion).await;
            self.calibrate(&completion, sent_chars, sent_messages, tools_chars);
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
                self.session.record_update(
                    &self.turn_id,
                    Event::Text {
                        delta: refusal.clone(),
                    },
                );
                content = refusal;
            }
            for call in &mut tool_calls {
                if call.id.is_empty() {
                    call.id = format!("call_{}", uuid::Uuid::new_v4().simple());
                }
            }
            self.record_message(
                &mut conversation,
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
            if tool_calls.is_empty() {
                return match finish_reason {
                    Some(FinishReason::Length) => (
                        StopReason::Error,
                        Some((
                            TurnErrorKind::Other,
                            context::cut_answer_message(client.output_limit()),
                        )),
                    ),
                    _ => (StopReason::EndTurn, None),
                };
            }
            for (i, call) in tool_calls.iter().enumerate() {
                if self.cancel.is_cancelled() {
                    for skipped in &tool_calls[i..] {
                        self.record_message(
                            &mut conversation,
                            Message::Tool {
                                tool_call_id: skipped.id.clone(),
                                content: "Not run: the user cancelled the turn.".into(),
                            },
                        );
                    }
                    return (StopReason::Cancelled, None);
                }
                let outcome = self.run_tool(call).await;
                let for_model = match &sizing {
                    Some(sizing) => context::cap_text(
                        &outcome.output,
                        Sizing {
                            ratio: *tandem_stdx::lock(&self.agent.inner.ratio),
                            ..sizing.clone()
                        }
                        .tool_output_chars(),
                    ),
                    None => outcome.output.clone(),
                };
                // A folder's own rules come with the first result from under it (the model's
                // copy only: the user was shown them as a `rules` update).
                let for_model = for_model + &self.nested_rules(call);
                if !outcome.silent {
                    self.emit(Event::ToolResult {
                        tool_call_id: call.id.clone(),
                        status: outcome.status,
                        output: outcome.output,
                        diff: outcome.diff,
                    });
                }
                self.record_message(
                    &mut conversation,
                    Message::Tool {
                        tool_call_id: call.id.clone(),
                        content: for_model,
                    },
                );
            }
            if self.cancel.is_cancelled() {
                return (StopReason::Cancelled, None);
            }
        }
        (StopReason::MaxSteps, None)
    }
}
