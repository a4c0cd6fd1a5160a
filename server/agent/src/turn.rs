//! The turn loop: ask the model, run the tools it calls, feed the results back, until it answers
//! with text alone, the step cap is reached, or the user cancels.

mod extend;
mod fetch;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tracing::Instrument;

use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

use super::approval::{
    ApprovalAction, ApprovalReply, ApprovalRequest, CommandApproval, DecidedBy, Decision,
    EditApproval,
};
use super::context::{self, Fit, SMALL_WINDOW, Sizing};
use super::events::{Event, Location, StopReason, ToolCallEvent, ToolStatus, TurnErrorKind};
use super::plan;
use super::prompt::{self, ContextItem};
use super::session::Session;
use super::transcript::Record;
use super::{Agent, Diagnostic, Frontend};
use tandem_model::{Completion, Delta, FinishReason, Message, ToolCall, ToolDefinition};
use tandem_provider::{CompletionRequest, ProviderErrorKind, tokens};
use tandem_tools as tools;
use tandem_tools::{
    AppliedEdit, CommandProposal, EditProposal, EditorText, ErrorKind, FileDiff, Prepared, Tool,
    ToolContext, ToolError,
};

pub(super) struct Turn {
    pub agent: Agent,
    pub session: Arc<Session>,
    pub turn_id: String,
    pub frontend: Arc<dyn Frontend>,
    pub cancel: CancellationToken,
    /// The images attached to the prompt, sent after its text.
    pub images: Vec<tandem_model::Image>,
}

/// What a tool call came to, for the model and the user.
struct Outcome {
    status: ToolStatus,
    output: String,
    diff: Option<FileDiff>,
    /// Shown to the user otherwise (a plan is shown as a plan, not as a call and its result).
    silent: bool,
}

impl Outcome {
    fn ok(output: String) -> Self {
        Self {
            status: ToolStatus::Ok,
            output,
            diff: None,
            silent: false,
        }
    }
    fn error(output: String) -> Self {
        Self {
            status: ToolStatus::Error,
            output,
            diff: None,
            silent: false,
        }
    }
    fn rejected(output: String) -> Self {
        Self {
            status: ToolStatus::Rejected,
            output,
            diff: None,
            silent: false,
        }
    }
}

/// The most of one command's output streamed to the face as it runs.
const MAX_SHOWN_OUTPUT: usize = 1024 * 1024;

/// How long an Accept waits for the problems before the edit when they were not in yet.
const BEFORE_GRACE: Duration = Duration::from_millis(250);

/// How long the editor gets to report diagnostics after an edit.
const DIAGNOSTICS_WAIT: Duration = Duration::from_secs(5);

impl Turn {
    pub async fn run(&self, text: String, context: Vec<ContextItem>) {
        // Everything logged while the turn runs carries its ids (the log file's spans).
        let span = tracing::info_span!("turn", session = %self.session.id, turn = %self.turn_id);
        let (stop_reason, error) = async {
            tracing::info!("turn started");
            let ended = self.run_steps(text, context).await;
            tracing::info!(stop_reason = ?ended.0, error = ended.1.is_some(), "turn ended");
            ended
        }
        .instrument(span)
        .await;
        match error {
            Some((kind, message)) => self.end(stop_reason, Some(message), Some(kind)),
            None => self.end(stop_reason, None, None),
        }
    }

    /// Releases the session, then says so: a client that prompts again as soon as it sees
    /// `TurnEnded` must find the session free.
    pub fn end(
        &self,
        stop_reason: StopReason,
        error: Option<String>,
        error_kind: Option<TurnErrorKind>,
    ) {
        self.session.end_turn();
        self.emit(Event::TurnEnded {
            stop_reason,
            error,
            error_kind,
        });
    }

    /// Sends an event to the face and, unless it is a streaming piece, into the history.
    fn emit(&self, event: Event) {
        if !event.is_piece() {
            self.session.record_update(&self.turn_id, event.clone());
        }
        self.frontend.update(&self.session.id, &self.turn_id, event);
    }

    fn record_message(&self, conversation: &mut Vec<Message>, message: Message) {
        self.session.save_images(&message);
        self.session.persist(&Record::Message {
            turn_id: self.turn_id.clone(),
            at: OffsetDateTime::now_utc(),
            message: (&message).into(),
        });
        conversation.push(message);
    }

    async fn run_steps(
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
        let images = self.images.clone();
        self.record_message(
            &mut conversation,
            Message::User {
                content: user,
                images,
            },
        );
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

    /// The window and the kind of server, when the window is known.
    async fn sizing(&self) -> Option<Sizing> {
        let window = self.agent.window().await?;
        Some(Sizing {
            window,
            kind: self.agent.inner.client.server_kind(),
            ratio: *tandem_stdx::lock(&self.agent.inner.ratio),
        })
    }

    /// Calibrates the estimate with the server's own tokenizer, where it has one.
    async fn calibrate_with_tokenizer(&self, conversation: &[Message]) {
        let text: String = conversation
            .iter()
            .map(|m| match m {
                Message::System { content }
                | Message::User { content, .. }
                | Message::Tool { content, .. } => content.as_str(),
                Message::Assistant { content, .. } => content.as_str(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let chars = text.chars().count() as f64;
        if chars < 200.0 {
            return;
        }
        if let Some(count) = self.agent.inner.client.count_tokens(&text).await
            && count > 0
        {
            *tandem_stdx::lock(&self.agent.inner.ratio) = (chars / count as f64).clamp(1.5, 6.0);
        }
    }

    /// Learns characters per token from the usage the server reported. A report of far fewer
    /// tokens than were sent means the server cut the prompt (Ollama's default context) or its
    /// chat template dropped the tools: the user is told, and in auto mode tools go as text.
    fn calibrate(&self, completion: &Completion, chars: u64, messages: usize, tools_chars: u64) {
        let Some(usage) = completion.usage.filter(|u| u.prompt_tokens > 0) else {
            return;
        };
        let had_tools = tools_chars > 0;
        let client = &self.agent.inner.client;
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
        match context::calibrated(chars, messages, usage.prompt_tokens) {
            Some(ratio) => *tandem_stdx::lock(&self.agent.inner.ratio) = ratio,
            // A small request is too small to tell a cut from a scripted or odd count.
            None if tokens::tokens_for(chars, messages, 4.0) < 2048 => {}
            None => {
                let expected = tokens::tokens_for(chars, messages, 4.0);
                let mut message = format!(
                    "the model server reports reading {} tokens of a request of about {}: it cut \
                     the prompt (Ollama does at its default context size; set a larger context) \
                     or its chat template dropped part of it, such as the tool definitions",
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

    /// The server counted more tokens than estimated: the ratio goes down to match (never up:
    /// an overflow's count may include the answer's room).
    fn calibrate_down(&self, chars: u64, messages: usize, counted: u64) {
        if let Some(ratio) = context::calibrated(chars, messages, counted) {
            let mut current = tandem_stdx::lock(&self.agent.inner.ratio);
            *current = current.min(ratio);
        }
    }

    /// An error for the user; an overflow gets its numbers and the fix.
    async fn overflow_message(&self, error: tandem_provider::ProviderError) -> String {
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
            self.agent.inner.client.server_kind().window_fix(),
            error.message
        )
    }

    /// Puts the streamed text and reasoning of a step into the history, one entry each.
    fn record_streamed(&self, reasoning: &str, text: &str) {
        if !reasoning.is_empty() {
            self.session.record_update(
                &self.turn_id,
                Event::Reasoning {
                    delta: reasoning.to_string(),
                },
            );
        }
        if !text.is_empty() {
            self.session.record_update(
                &self.turn_id,
                Event::Text {
                    delta: text.to_string(),
                },
            );
        }
    }

    /// Keeps what the model said before a cancel or an error, so the next prompt has it.
    fn keep_partial(&self, conversation: &mut Vec<Message>, text: String, reasoning: String) {
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

    async fn report_usage(&self, completion: &Completion) {
        let Some(usage) = completion.usage else {
            return;
        };
        let context_window = self.agent.context_window().await;
        self.emit(Event::Usage {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            context_window,
        });
    }

    /// One tool call, in a span of its own (its name and id; never its arguments, which may
    /// hold anything the model read).
    async fn run_tool(&self, call: &ToolCall) -> Outcome {
        let span = tracing::info_span!("tool", name = %call.name, call = %call.id);
        async {
            let outcome = self.run_tool_unlogged(call).await;
            tracing::info!(status = ?outcome.status, "tool call done");
            outcome
        }
        .instrument(span)
        .await
    }

    async fn run_tool_unlogged(&self, call: &ToolCall) -> Outcome {
        // Judged before anything else: a mode's refusal asks nobody and runs nothing.
        let mode = self.session.mode();
        if !mode.allows(&call.name) {
            self.show_call(call);
            return Outcome::rejected(mode.refusal(&call.name));
        }
        if call.name == plan::TOOL_NAME {
            return self.update_plan(call);
        }
        if call.name == tandem_tools::fetch::TOOL_NAME {
            return self.fetch(call).await;
        }
        if let Some(outcome) = self.run_mcp(call).await {
            return outcome;
        }
        let info = self.show_call(call);
        let one_file = Tool::from_name(&call.name).is_some_and(Tool::works_on_one_file);
        let editor_text = match info.target {
            Some(target) if one_file => match self.session.workspace.resolve(&target.path) {
                Ok(abs) => self.editor_text(&abs).await,
                Err(_) => None,
            },
            _ => None,
        };
        let ctx = ToolContext {
            editor_text: editor_text.as_ref(),
            ..ToolContext::new(&self.session.workspace, &self.session.reads)
        };
        let prepared = tokio::select! {
            r = tools::prepare(&ctx, &call.name, &call.arguments) => r,
            () = self.cancel.cancelled() => return Outcome::rejected("Cancelled by the user.".into()),
        };
        match prepared {
            Err(e) => Outcome::error(format!("Error ({}): {}", e.kind, e.message)),
            Ok(Prepared::Done(output)) => Outcome::ok(output),
            Ok(Prepared::Edit(proposal)) => self.edit(&ctx, call, proposal).await,
            Ok(Prepared::Command(proposal)) => self.command(call, proposal).await,
        }
    }

    /// Shows the user a built-in tool call (or a call to a tool that doesn't exist).
    fn show_call(&self, call: &ToolCall) -> tools::CallInfo {
        let arguments = serde_json::from_str(&call.arguments)
            .unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone()));
        let info = tools::describe(&call.name, &call.arguments);
        let root = self.session.workspace.root();
        self.emit(Event::ToolCall(ToolCallEvent {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            arguments,
            title: info.title.clone(),
            kind: info.kind,
            location: info.target.as_ref().map(|t| Location {
                path: root.join(&t.path),
                line: t.line,
            }),
        }));
        info
    }

    /// `update_plan`: a valid plan becomes the session's and is shown as a plan (not as a tool
    /// call); a bad one is shown as a failed call and the model told what is wrong.
    fn update_plan(&self, call: &ToolCall) -> Outcome {
        match plan::parse(&call.arguments) {
            Ok(plan) => {
                let ack = plan.acknowledgement();
                self.session.set_plan(plan.clone());
                self.emit(Event::Plan(plan));
                Outcome {
                    silent: true,
                    ..Outcome::ok(ack)
                }
            }
            Err(why) => {
                self.show_call(call);
                Outcome::error(format!("Error (invalid_arguments): {why}"))
            }
        }
    }

    /// Asks the user unless the policy or an earlier "accept always" already says yes.
    async fn approve(&self, request: ApprovalRequest, auto: bool) -> ApprovalReply {
        self.decide(request, auto, true).await
    }

    /// Asks the user, whatever the policy or "accept always" say (a command outside the sandbox).
    async fn ask_always(&self, request: ApprovalRequest) -> ApprovalReply {
        self.decide(request, false, false).await
    }

    async fn decide(
        &self,
        request: ApprovalRequest,
        auto: bool,
        honour_always: bool,
    ) -> ApprovalReply {
        let action = request.action.clone();
        let tool_call_id = request.tool_call_id.clone();
        let (reply, by) = if auto {
            (ApprovalReply::accept(), DecidedBy::Policy)
        } else if honour_always && self.session.always(&action) {
            (ApprovalReply::accept(), DecidedBy::Session)
        } else {
            // Bounded: an editor that drops the question (or a user who walked away) must not
            // hold the session; an unanswered question is a "no" and the turn goes on.
            let limit = self.agent.inner.settings.policy.timeout();
            let asked =
                tokio::time::timeout(limit, self.frontend.request_approval(request.clone()));
            tokio::select! {
                reply = asked => match reply {
                    Ok(reply) => (reply, DecidedBy::Face),
                    Err(_) => (ApprovalReply::reject(format!(
                        "Nobody answered within {} s, so it was not done.",
                        limit.as_secs()
                    )), DecidedBy::Timeout),
                },
                () = self.cancel.cancelled() => (
                    ApprovalReply::reject("The user cancelled the turn."),
                    DecidedBy::Cancelled,
                ),
            }
        };
        self.frontend.approval_decided(&request, &reply, by);
        if reply.decision == Decision::AcceptAlways && honour_always {
            self.session.set_always(&action);
        }
        self.session.persist(&Record::Approval {
            turn_id: self.turn_id.clone(),
            tool_call_id,
            at: OffsetDateTime::now_utc(),
            decision: reply.decision.into(),
            edited: reply.content.is_some(),
            feedback: reply.feedback.clone(),
        });
        reply
    }

    fn request(&self, call: &ToolCall, action: ApprovalAction) -> ApprovalRequest {
        ApprovalRequest {
            session_id: self.session.id.clone(),
            turn_id: self.turn_id.clone(),
            tool_call_id: call.id.clone(),
            action,
        }
    }

    async fn edit(
        &self,
        ctx: &ToolContext<'_>,
        call: &ToolCall,
        proposal: EditProposal,
    ) -> Outcome {
        let request = self.request(
            call,
            ApprovalAction::Edit(EditApproval {
                path: proposal.path.clone(),
                original: proposal.original.clone(),
                proposed: proposal.proposed.clone(),
                diff: proposal.diff.clone(),
            }),
        );
        let policy = &self.agent.inner.settings.policy;
        // The editor's problems before the edit are gathered while the user decides, so the
        // write follows an Accept at once.
        let before = tokio::spawn(tokio::time::timeout(
            DIAGNOSTICS_WAIT,
            self.frontend.diagnostics(vec![proposal.path.clone()]),
        ));
        let reply = self.approve(request, policy.auto_approve.edit).await;
        if reply.decision == Decision::Reject {
            before.abort();
            return Outcome::rejected(rejection("edit", &reply));
        }
        if self.cancel.is_cancelled() {
            before.abort();
            return Outcome::rejected("Cancelled by the user; nothing was written.".into());
        }
        // Not settled yet (an auto-approved edit, a very quick Accept): given a moment at most,
        // not the whole settling time; after the write it would see the new text, so then the
        // problems after are all reported.
        let before: Option<Vec<Diagnostic>> = match tokio::time::timeout(BEFORE_GRACE, before).await
        {
            Ok(Ok(Ok(diagnostics))) => Some(diagnostics),
            _ => None,
        };
        let edited = reply
            .content
            .as_ref()
            .is_some_and(|c| *c != proposal.proposed);
        let content = reply.content.as_deref().unwrap_or(&proposal.proposed);
        let applied = match self.write(ctx, &proposal, content).await {
            Ok(applied) => applied,
            // The file changed while the user decided (typing elsewhere in the buffer, most
            // often): a SEARCH/REPLACE edit whose SEARCH texts are each still there once is the
            // same edit, made against the text as it is now.
            Err(e)
                if e.kind == ErrorKind::Stale
                    && call.name == "replace_in_file"
                    && reply.content.is_none()
                    && reply.rejected_hunks.is_empty() =>
            {
                match self.rematch(ctx, call).await {
                    Some(fresh) => match self.write(ctx, &fresh, &fresh.proposed).await {
                        Ok(applied) => applied,
                        Err(e) => {
                            return Outcome::error(format!("Error ({}): {}", e.kind, e.message));
                        }
                    },
                    None => return Outcome::error(format!("Error ({}): {}", e.kind, e.message)),
                }
            }
            Err(e) => return Outcome::error(format!("Error ({}): {}", e.kind, e.message)),
        };
        let mut output = if edited {
            format!(
                "The user edited your proposal before accepting it. What was written to {} \
                 (diff against the file before the edit):\n{}",
                proposal.display_path, applied.diff.unified
            )
        } else {
            format!(
                "Applied the edit to {} (+{} -{}).",
                proposal.display_path, applied.diff.added, applied.diff.removed
            )
        };
        if !reply.rejected_hunks.is_empty() {
            output.push_str(&dropped_hunks(&proposal.diff, &reply.rejected_hunks));
        }
        if let Some(feedback) = reply.feedback.filter(|f| !f.trim().is_empty()) {
            output.push_str(&format!("\nThe user's note: {feedback}"));
        }
        // Accepted means written: a cancel now only skips the wait for the problems after.
        let after = self.diagnostics(&proposal).await;
        let new: Vec<&Diagnostic> = after
            .iter()
            .filter(|d| before.as_ref().is_none_or(|b| !b.contains(d)))
            .collect();
        if !new.is_empty() {
            output.push_str(if before.is_some() {
                "\n\nNew problems the editor reports after this edit:"
            } else {
                "\n\nProblems the editor reports in the file after this edit:"
            });
            for d in new {
                output.push_str(&format!(
                    "\n{}:{}: {}: {}",
                    d.path,
                    d.line,
                    d.severity.as_str(),
                    d.message
                ));
            }
        }
        Outcome {
            status: ToolStatus::Ok,
            output,
            diff: Some(applied.diff),
            silent: false,
        }
    }

    /// The file's text as the editor holds it, when the face reads through the editor.
    async fn editor_text(&self, path: &Path) -> Option<EditorText> {
        let read = self.frontend.read_text(path)?;
        let text = tokio::select! {
            r = read => r.ok()?,
            () = self.cancel.cancelled() => return None,
        };
        Some(EditorText {
            path: path.to_path_buf(),
            text,
        })
    }

    /// Writes an approved edit: through the editor when the face does that, else to disk. Either
    /// way the file is checked first against what the proposal was made from (the editor's text
    /// now, when it has one).
    async fn write(
        &self,
        ctx: &ToolContext<'_>,
        proposal: &EditProposal,
        content: &str,
    ) -> Result<AppliedEdit, ToolError> {
        let fresh = self.editor_text(&proposal.path).await;
        let ctx = ToolContext {
            editor_text: fresh.as_ref(),
            ..ToolContext::new(ctx.workspace, ctx.reads)
        };
        // Checked and saved for undo before anything is written, whichever way it is written:
        // a face may send its write the moment it is asked.
        let path = tools::begin_edit(&ctx, proposal, &self.session.undo, &self.turn_id)?;
        match self
            .frontend
            .write_text(&path, proposal.original.as_deref(), content)
        {
            None => tools::write_to_disk(&ctx, &path, content)?,
            Some(write) => write.await.map_err(|why| {
                ToolError::new(
                    ErrorKind::Io,
                    format!(
                        "the editor did not apply the edit to {} ({why}); nothing was written",
                        proposal.display_path
                    ),
                )
            })?,
        }
        // For undo: so a later restore can tell whether someone changed the file since.
        if let Err(e) = self.session.undo.record_written(
            &self.turn_id,
            &proposal.display_path,
            content.as_bytes(),
        ) {
            tracing::warn!("{}", e.message);
        }
        Ok(tools::finish_edit(&ctx, proposal, &path, content))
    }

    /// Files the prompt points at without their text (a link, not a selection the face sent):
    /// read through the editor when the face does that, like the tools read them, so the model
    /// sees the unsaved buffer and not the disk. Only workspace files the tools may read; the rest
    /// are left to the prompt's own checks.
    async fn read_linked_files(&self, mut context: Vec<ContextItem>) -> Vec<ContextItem> {
        for item in context.iter_mut().filter(|c| c.text.is_none()) {
            if let Ok(path) = self.session.workspace.resolve_for_read(&item.path)
                && let Some(read) = self.editor_text(&path).await
            {
                item.text = Some(read.text);
            }
        }
        context
    }

    /// The tool call prepared again, against the file as the editor (or the disk) holds it now.
    async fn rematch(&self, ctx: &ToolContext<'_>, call: &ToolCall) -> Option<EditProposal> {
        let path = self
            .session
            .workspace
            .resolve(&tools::describe(&call.name, &call.arguments).target?.path)
            .ok()?;
        let fresh = self.editor_text(&path).await;
        let ctx = ToolContext {
            editor_text: fresh.as_ref(),
            ..ToolContext::new(ctx.workspace, ctx.reads)
        };
        match tools::prepare(&ctx, &call.name, &call.arguments).await {
            Ok(Prepared::Edit(proposal)) => Some(proposal),
            _ => None,
        }
    }

    /// The editor's diagnostics for the edited file, bounded in time (and none when cancelled).
    async fn diagnostics(&self, proposal: &EditProposal) -> Vec<Diagnostic> {
        let wait = self.frontend.diagnostics(vec![proposal.path.clone()]);
        tokio::select! {
            r = tokio::time::timeout(DIAGNOSTICS_WAIT, wait) => r.unwrap_or_default(),
            () = self.cancel.cancelled() => Vec::new(),
        }
    }

    async fn command(&self, call: &ToolCall, mut proposal: CommandProposal) -> Outcome {
        // Where nothing can be confined (Windows; Linux without Landlock), the command runs
        // outside the sandbox once the user approves it, and the approval says so. It never
        // runs unasked.
        if proposal.sandboxed
            && self.agent.inner.settings.policy.sandbox
                == tandem_sandbox::SandboxMode::WorkspaceWrite
            && !self.agent.inner.sandbox.filesystem()
        {
            proposal.sandboxed = false;
        }
        let request = self.request(
            call,
            ApprovalAction::Command(CommandApproval {
                command: proposal.command.clone(),
                outside_sandbox: !proposal.sandboxed,
                cwd: proposal.cwd.clone(),
                display_cwd: proposal.display_cwd.clone(),
            }),
        );
        let settings = &self.agent.inner.settings;
        let policy = &settings.policy;
        let walls = super::walls(settings, self.session.workspace.root());
        // Unasked only inside a sandbox that holds: a command the model wants outside it always
        // asks (acceptAlways included), and where the kernel can't sandbox, so does every
        // allow-listed one.
        let walled = proposal.sandboxed && self.agent.inner.sandbox.enforces(&walls.policy());
        let auto = proposal.sandboxed
            && (policy.auto_approve.command
                || (walled && policy.allows_command(&proposal.command)));
        let reply = if proposal.sandboxed {
            self.approve(request, auto).await
        } else {
            self.ask_always(request).await
        };
        if reply.decision == Decision::Reject {
            return Outcome::rejected(rejection("command", &reply));
        }
        let frontend = &self.frontend;
        let (session_id, turn_id) = (&self.session.id, &self.turn_id);
        // What goes to the editor is bounded: past the cap one note, then nothing (the tool
        // result keeps the output's head and tail, for the model and the user alike).
        let mut shown = 0usize;
        let mut noted = false;
        let mut on_output = |chunk: &str| {
            if noted {
                return;
            }
            let mut delta = chunk.to_string();
            // The note goes with the first byte past the cap: output that fills the cap exactly
            // (reads of 16 KiB add up to 1 MiB) and then goes on gets it with its next chunk.
            if shown + delta.len() > MAX_SHOWN_OUTPUT {
                tandem_stdx::truncate_in_place(&mut delta, MAX_SHOWN_OUTPUT - shown);
                delta.push_str(&format!(
                    "\n[output beyond {} MiB is not shown here; the result shows how it ends]\n",
                    MAX_SHOWN_OUTPUT / (1024 * 1024)
                ));
                shown = MAX_SHOWN_OUTPUT;
                noted = true;
            } else {
                shown += delta.len();
            }
            frontend.update(
                session_id,
                turn_id,
                Event::ToolOutput {
                    tool_call_id: call.id.clone(),
                    delta,
                },
            );
        };
        match tools::run_command(&proposal, &walls, &mut on_output, self.cancel.clone()).await {
            Err(e) => Outcome::error(format!("Error ({}): {}", e.kind, e.message)),
            Ok(outcome) => Outcome {
                status: if outcome.exit_code == Some(0) && !outcome.timed_out && !outcome.cancelled
                {
                    ToolStatus::Ok
                } else {
                    ToolStatus::Error
                },
                output: outcome.report(),
                diff: None,
                silent: false,
            },
        }
    }
}

/// What the model is told of the parts of its proposal the user dropped.
fn dropped_hunks(diff: &FileDiff, dropped: &[usize]) -> String {
    let mut note = format!(
        "\nThe user dropped {} of the {} changes you proposed; they were not written:",
        dropped.len(),
        diff.hunks.len()
    );
    for &i in dropped {
        match diff.hunks.get(i) {
            Some(hunk) => {
                let lines = hunk.old_text.lines().count();
                note.push_str(&format!(
                    "\n- change {} (at line {}, {} line(s) of the file)",
                    i + 1,
                    hunk.old_start.max(1),
                    lines
                ));
            }
            None => note.push_str(&format!("\n- change {}", i + 1)),
        }
    }
    note
}

/// What the model is told when the user says no.
fn rejection(what: &str, reply: &ApprovalReply) -> String {
    match reply.feedback.as_deref().map(str::trim) {
        Some(note) if !note.is_empty() => {
            format!("The user rejected this {what}. Their feedback: {note}")
        }
        _ => format!("The user rejected this {what}."),
    }
}
