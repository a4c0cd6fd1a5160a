//! The face `tandem exec` shows the core: progress to stderr (or events to stdout with
//! `--json`), the final answer kept for the end, approvals answered at once by [`Rules`].

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use tandem_agent::approval::{ApprovalReply, ApprovalRequest, DecidedBy, Decision};
use tandem_agent::events::{Event, StopReason, ToolCallEvent, TurnErrorKind, retry_line};
use tandem_agent::{Frontend, SessionId, ToolCallId, TurnId};
use tandem_stdx::lock;

use super::events::{self, ExecEvent};
use super::rules::Rules;
use crate::display::{inert, summary};

/// How the turn ended, for the exit code.
pub struct Ended {
    pub stop_reason: StopReason,
    pub error: Option<String>,
    pub error_kind: Option<TurnErrorKind>,
    /// The answer: the model's text after its last tool call.
    pub answer: String,
    /// Actions the model asked for that were refused.
    pub rejected: u32,
}

pub struct ExecFrontend {
    pub json: bool,
    pub rules: Rules,
    /// Whether stderr is a terminal: then the model's text is made inert there.
    pub stderr_tty: bool,
    /// Paths in progress lines are shown relative to it.
    pub root: PathBuf,
    pub state: Mutex<State>,
    pub ended: mpsc::UnboundedSender<Ended>,
    /// Where the `--json` events go: [`emit`] (stdout), or a test's list.
    pub out: Box<dyn Fn(&ExecEvent) + Send + Sync>,
}

#[derive(Default)]
pub struct State {
    /// Text since the last tool call: the answer if the turn ends now.
    answer: String,
    /// Text and reasoning not yet reported as a whole `message` / `reasoning` event.
    text: String,
    reasoning: String,
    rejected: u32,
    /// The calls whose approval was refused (counted then, not again at their result).
    refused_by_approval: HashSet<ToolCallId>,
    prompt_tokens: u64,
    completion_tokens: u64,
    requests: u32,
}

/// One JSON line on stdout.
pub fn emit(event: &ExecEvent) {
    let Ok(line) = serde_json::to_string(event) else {
        return;
    };
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}

impl ExecFrontend {
    fn progress(&self, line: &str) {
        if self.json {
            return;
        }
        let line = if self.stderr_tty {
            inert(line, false)
        } else {
            line.into()
        };
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{line}");
    }

    /// Reports the text and reasoning gathered so far as whole messages.
    fn flush(&self, state: &mut State) {
        let reasoning = std::mem::take(&mut state.reasoning);
        let text = std::mem::take(&mut state.text);
        if !self.json {
            return;
        }
        if !reasoning.is_empty() {
            (self.out)(&ExecEvent::Reasoning { text: reasoning });
        }
        if !text.is_empty() {
            (self.out)(&ExecEvent::Message { text });
        }
    }

    fn tool_call(&self, state: &mut State, call: ToolCallEvent) {
        // Text before a tool call is not the answer: in text mode it is progress.
        let said = std::mem::take(&mut state.answer);
        if !said.trim().is_empty() {
            self.progress(said.trim_end());
        }
        self.progress(&format!("• {}", call.title));
        if self.json {
            (self.out)(&ExecEvent::ToolCall {
                tool_call_id: call.tool_call_id.to_string(),
                name: call.name,
                title: call.title,
                kind: call.kind.into(),
                arguments: call.arguments,
            });
        }
    }
}

impl Frontend for ExecFrontend {
    fn update(&self, session_id: &SessionId, turn_id: &TurnId, event: Event) {
        let mut state = lock(&self.state);
        match &event {
            Event::Text { delta } => {
                state.text.push_str(delta);
                state.answer.push_str(delta);
                return;
            }
            Event::Reasoning { delta } => {
                state.reasoning.push_str(delta);
                return;
            }
            // The result carries the whole output; the stream is for people watching.
            Event::ToolOutput { .. } => return,
            _ => self.flush(&mut state),
        }
        match event {
            Event::Text { .. } | Event::Reasoning { .. } | Event::ToolOutput { .. } => {}
            Event::TurnStarted { prompt, .. } => {
                if self.json {
                    (self.out)(&ExecEvent::TurnStarted {
                        session_id: session_id.to_string(),
                        turn_id: turn_id.to_string(),
                        prompt,
                    });
                }
            }
            Event::ToolCall(call) => self.tool_call(&mut state, call),
            Event::ToolResult {
                tool_call_id,
                status,
                output,
                diff,
                ..
            } => {
                let mark = match status {
                    tandem_agent::events::ToolStatus::Ok => "✓",
                    tandem_agent::events::ToolStatus::Error => "✗",
                    tandem_agent::events::ToolStatus::Rejected => "⊘",
                };
                // A refusal that asked nobody (plan mode's: an edit or a command in a read-only
                // session) is a refusal too; one that was an approval was counted then.
                if status == tandem_agent::events::ToolStatus::Rejected
                    && !state.refused_by_approval.contains(&tool_call_id)
                {
                    state.rejected += 1;
                }
                self.progress(&format!("  {mark} {}", summary(&output)));
                if self.json {
                    (self.out)(&ExecEvent::ToolResult {
                        tool_call_id: tool_call_id.to_string(),
                        status: status.into(),
                        output,
                        diff: diff.map(|d| d.unified),
                    });
                }
            }
            Event::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            } => {
                state.prompt_tokens += prompt_tokens;
                state.completion_tokens += completion_tokens;
                state.requests += 1;
                if self.json {
                    (self.out)(&ExecEvent::Usage {
                        prompt_tokens,
                        completion_tokens,
                        context_window,
                    });
                }
            }
            Event::Rules { files } => {
                let names: Vec<String> = files
                    .iter()
                    .map(|f| tandem_stdx::display_relative(&f.path, &self.root))
                    .collect();
                self.progress(&format!("rules: {}", names.join(", ")));
                if self.json {
                    let files = files
                        .iter()
                        .map(|f| events::RulesFile {
                            path: f.path.display().to_string(),
                            bytes: f.bytes,
                            truncated: f.truncated,
                        })
                        .collect();
                    (self.out)(&ExecEvent::Rules { files });
                }
            }
            Event::Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            } => {
                self.progress(&crate::display::compaction(
                    elided,
                    summarized,
                    tokens_before,
                    tokens_after,
                    context_window,
                ));
                if self.json {
                    (self.out)(&ExecEvent::Compaction {
                        elided,
                        summarized,
                        tokens_before,
                        tokens_after,
                        context_window,
                    });
                }
            }
            Event::Plan(plan) => {
                self.progress(&format!("plan {}", plan.progress()));
                if self.json {
                    let entries = plan
                        .steps
                        .iter()
                        .map(|s| events::PlanEntry {
                            step: s.step.clone(),
                            status: s.status.into(),
                        })
                        .collect();
                    (self.out)(&ExecEvent::Plan {
                        explanation: plan.explanation,
                        entries,
                    });
                }
            }
            Event::Notice { message } => {
                self.progress(&format!("note: {message}"));
                if self.json {
                    (self.out)(&ExecEvent::Notice { message });
                }
            }
            Event::Retrying(retry) => {
                self.progress(&retry_line(&retry));
                if self.json {
                    (self.out)(&ExecEvent::Retrying {
                        retry: retry.retry,
                        max_retries: retry.max_retries,
                        status: retry.status,
                        error: retry.error,
                        wait_ms: u64::try_from(retry.wait.as_millis()).unwrap_or(u64::MAX),
                    });
                }
            }
            Event::TurnEnded {
                stop_reason,
                error,
                error_kind,
            } => {
                let ended = Ended {
                    stop_reason,
                    error,
                    error_kind,
                    answer: std::mem::take(&mut state.answer),
                    rejected: state.rejected,
                };
                if self.json {
                    (self.out)(&ExecEvent::TurnEnded {
                        stop_reason: stop_reason.into(),
                        error: ended.error.clone(),
                        error_kind: error_kind.map(Into::into),
                        rejected_actions: ended.rejected,
                        exit_code: super::exit_code(&ended),
                        usage: events::TurnUsage {
                            requests: state.requests,
                            prompt_tokens: state.prompt_tokens,
                            completion_tokens: state.completion_tokens,
                        },
                    });
                } else {
                    self.progress(&format!(
                        "[{} request{}, {} tokens in, {} out]",
                        state.requests,
                        if state.requests == 1 { "" } else { "s" },
                        state.prompt_tokens,
                        state.completion_tokens
                    ));
                }
                let _ = self.ended.send(ended);
            }
        }
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        // Answered at once: nothing here waits for a person.
        let reply = self.rules.answer(&request.action);
        Box::pin(async move { reply })
    }

    fn approval_decided(&self, request: &ApprovalRequest, reply: &ApprovalReply, by: DecidedBy) {
        let mut state = lock(&self.state);
        self.flush(&mut state);
        if reply.decision == Decision::Reject {
            state.rejected += 1;
            state
                .refused_by_approval
                .insert(request.tool_call_id.clone());
            if let Some(note) = &reply.feedback {
                self.progress(&format!("  refused: {note}"));
            }
        }
        if self.json {
            (self.out)(&events::approval(
                &request.tool_call_id,
                &request.action,
                reply,
                by,
            ));
        }
    }
}
