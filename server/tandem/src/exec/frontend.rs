//! The face `tandem exec` shows the core: progress to stderr (or events to stdout with
//! `--json`), the final answer kept for the end, approvals answered at once by [`Rules`].

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use tandem_agent::approval::{ApprovalReply, ApprovalRequest, DecidedBy, Decision};
use tandem_agent::events::{Event, StopReason, ToolStatus, TurnErrorKind, retry_line};
use tandem_agent::view::{Change, TurnView};
use tandem_agent::{Frontend, SessionId, TurnId};
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

/// The turn as far as it went: the facts the progress lines, the events and the exit code are
/// made of.
pub type State = TurnView;

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

    /// Renders what the view says changed.
    fn render(&self, view: &TurnView, session_id: &SessionId, turn_id: &TurnId, change: Change) {
        self.render_in(view, session_id, turn_id, change, None);
    }

    /// Renders a change of `view`: the turn's, or a subagent's own (`parent` its `task` call:
    /// its progress lines indented, its events with a `parentId`).
    fn render_in(
        &self,
        view: &TurnView,
        session_id: &SessionId,
        turn_id: &TurnId,
        change: Change,
        parent: Option<&tandem_agent::ToolCallId>,
    ) {
        let json = |event: ExecEvent| {
            if self.json {
                (self.out)(&event);
            }
        };
        let parent_id = || parent.map(ToString::to_string);
        let progress = |line: &str| match parent {
            Some(_) => self.progress(&format!("    │ {}", line.replace('\n', "\n    │ "))),
            None => self.progress(line),
        };
        match change {
            Change::Subagent {
                parent: task,
                change,
                ..
            } => {
                // Never nested twice (the view drops a subagent's subagent).
                if parent.is_none()
                    && let Some(sub) = view.subagent(&task)
                {
                    self.render_in(&sub.view, session_id, turn_id, *change, Some(&task));
                }
            }
            Change::Text(_)
            | Change::Reasoning(_)
            | Change::Writing { .. }
            | Change::Output { .. }
            | Change::Asked { .. }
            | Change::Allowed { .. }
            | Change::Refused { .. }
            | Change::Interrupted { .. } => {}
            Change::FilesChanged { id } => {
                let Some(call) = view.tool(&id) else { return };
                for line in crate::display::files_changed_lines(&call.files_changed) {
                    self.progress(&line);
                }
                json(ExecEvent::FilesChanged {
                    tool_call_id: id.to_string(),
                    changes: call.files_changed.iter().map(Into::into).collect(),
                });
            }
            // The text and reasoning gathered so far, as whole messages.
            Change::Said { reasoning, text } => {
                if !reasoning.is_empty() {
                    json(ExecEvent::Reasoning {
                        text: reasoning,
                        parent_id: parent_id(),
                    });
                }
                if !text.is_empty() {
                    json(ExecEvent::Message {
                        text,
                        parent_id: parent_id(),
                    });
                }
            }
            Change::Started => json(ExecEvent::TurnStarted {
                session_id: session_id.to_string(),
                turn_id: turn_id.to_string(),
                prompt: view.prompt().to_string(),
            }),
            Change::Called { id, preamble } => {
                let Some(call) = view.tool(&id) else { return };
                // Text before a tool call is not the answer: in text mode it is progress.
                if !preamble.trim().is_empty() {
                    progress(preamble.trim_end());
                }
                progress(&format!("• {}", call.title));
                json(ExecEvent::ToolCall {
                    tool_call_id: id.to_string(),
                    name: call.name.clone(),
                    title: call.title.clone(),
                    kind: call.kind.into(),
                    arguments: call.arguments.clone(),
                    parent_id: parent_id(),
                });
            }
            Change::Finished { id } => {
                let Some(result) = view.tool(&id).and_then(|t| t.result.as_ref()) else {
                    return;
                };
                let mark = match result.status {
                    ToolStatus::Ok => "✓",
                    ToolStatus::Error => "✗",
                    ToolStatus::Rejected => "⊘",
                };
                progress(&format!("  {mark} {}", summary(&result.output)));
                json(ExecEvent::ToolResult {
                    tool_call_id: id.to_string(),
                    status: result.status.into(),
                    output: result.output.clone(),
                    diff: result.diff.as_ref().map(|d| d.unified.clone()),
                    parent_id: parent_id(),
                });
            }
            Change::Usage(request) => json(ExecEvent::Usage {
                prompt_tokens: request.prompt_tokens,
                completion_tokens: request.completion_tokens,
                context_window: request.context_window,
                parent_id: parent_id(),
            }),
            Change::Rules(files) => {
                let names: Vec<String> = files
                    .iter()
                    .map(|f| tandem_stdx::display_relative(&f.path, &self.root))
                    .collect();
                self.progress(&format!("rules: {}", names.join(", ")));
                let files = files
                    .into_iter()
                    .map(|f| events::RulesFile {
                        path: f.path.display().to_string(),
                        bytes: f.bytes,
                        truncated: f.truncated,
                    })
                    .collect();
                json(ExecEvent::Rules { files });
            }
            Change::Compaction(c) => {
                self.progress(&crate::display::compaction(
                    c.elided,
                    c.summarized,
                    c.tokens_before,
                    c.tokens_after,
                    c.context_window,
                ));
                json(ExecEvent::Compaction {
                    elided: c.elided,
                    summarized: c.summarized,
                    tokens_before: c.tokens_before,
                    tokens_after: c.tokens_after,
                    context_window: c.context_window,
                });
            }
            Change::Plan => {
                let Some(plan) = view.plan() else { return };
                self.progress(&format!("plan {}", plan.progress()));
                let entries = plan
                    .steps
                    .iter()
                    .map(|s| events::PlanEntry {
                        step: s.step.clone(),
                        status: s.status.into(),
                    })
                    .collect();
                json(ExecEvent::Plan {
                    explanation: plan.explanation.clone(),
                    entries,
                });
            }
            Change::Notice(message) => {
                self.progress(&format!("note: {message}"));
                json(ExecEvent::Notice { message });
            }
            Change::Retrying(retry) => {
                self.progress(&retry_line(&retry));
                json(ExecEvent::Retrying {
                    retry: retry.retry,
                    max_retries: retry.max_retries,
                    status: retry.status,
                    error: retry.error,
                    wait_ms: u64::try_from(retry.wait.as_millis()).unwrap_or(u64::MAX),
                });
            }
            Change::Ended => {
                let Some(end) = view.end() else { return };
                let usage = view.usage();
                let ended = Ended {
                    stop_reason: end.stop_reason,
                    error: end.error.clone(),
                    error_kind: end.error_kind,
                    answer: view.final_text().to_string(),
                    rejected: view.rejected_actions(),
                };
                if self.json {
                    (self.out)(&ExecEvent::TurnEnded {
                        stop_reason: end.stop_reason.into(),
                        error: ended.error.clone(),
                        error_kind: end.error_kind.map(Into::into),
                        rejected_actions: ended.rejected,
                        exit_code: super::exit_code(&ended),
                        usage: events::TurnUsage {
                            requests: usage.requests,
                            prompt_tokens: usage.prompt_tokens,
                            completion_tokens: usage.completion_tokens,
                        },
                    });
                } else {
                    self.progress(&format!(
                        "[{} request{}, {} tokens in, {} out]",
                        usage.requests,
                        if usage.requests == 1 { "" } else { "s" },
                        usage.prompt_tokens,
                        usage.completion_tokens
                    ));
                }
                let _ = self.ended.send(ended);
            }
        }
    }
}

impl Frontend for ExecFrontend {
    fn update(&self, session_id: &SessionId, turn_id: &TurnId, event: Event) {
        let mut view = lock(&self.state);
        for change in view.event(event) {
            self.render(&view, session_id, turn_id, change);
        }
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        // Answered at once: nothing here waits for a person.
        let reply = self.rules.answer(&request.action);
        Box::pin(async move { reply })
    }

    fn approval_decided(&self, request: &ApprovalRequest, reply: &ApprovalReply, by: DecidedBy) {
        let mut view = lock(&self.state);
        let changes = view.approval_decided(&request.tool_call_id, reply.decision);
        for change in changes {
            // What was said before the decision, whole; the decision itself is told below.
            if matches!(change, Change::Said { .. }) {
                self.render(&view, &request.session_id, &request.turn_id, change);
            }
        }
        if reply.decision == Decision::Reject
            && let Some(note) = &reply.feedback
        {
            self.progress(&format!("  refused: {note}"));
        }
        if self.json {
            (self.out)(&events::approval(request, reply, by));
        }
    }
}
